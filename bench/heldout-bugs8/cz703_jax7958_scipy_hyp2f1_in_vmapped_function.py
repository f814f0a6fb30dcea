# Source: https://github.com/jax-ml/jax/issues/7958 ("Request scipy.special.hyp2f1")
# sjiang23 needs the hypergeometric function in a batched function: "Direct using
# scipy.special.hyp2f1 causes jax.errors.TracerArrayConversionError, as I have a batched version
# of a function involving hyp". SciPy converts the BatchTracer under `jax.vmap`.
# Reconstructed (the report gave the call and the error; the function is the regularised
# incomplete beta written with 2F1).
import jax
import jax.numpy as jnp
from scipy.special import hyp2f1


def incomplete_beta_ratio(x, a, b):
    return x**a * hyp2f1(a, 1.0 - b, a + 1.0, x) / a  # expect: JAX703


print(incomplete_beta_ratio(0.5, 2.0, 3.0))
try:
    print(jax.vmap(incomplete_beta_ratio, in_axes=(0, None, None))(jnp.linspace(0.1, 0.9, 4), 2.0, 3.0))
except jax.errors.TracerArrayConversionError as err:
    print(type(err).__name__)
