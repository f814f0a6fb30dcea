# Source: https://github.com/vincentarelbundock/marginaleffects/issues/1587 ("marginaleffectsAD
# should work on Python 3.11")
# With the JAX backend (marginaleffectsAD), get_se_delta ends with `se[se == 0] <- value` in R;
# through reticulate that is py_set_item on a JAX array: "TypeError: JAX arrays are immutable
# and do not support in-place item assignment". The fix is se.at[se == 0].set(value) or
# jnp.where, or converting to NumPy first.
# Reconstructed (the Python that the R code becomes: the delta-method standard errors from a
# JAX jacobian, then the masked assignment; data made up).
import jax.numpy as jnp


def get_se_delta(J, V):
    se = jnp.sqrt(jnp.sum((J @ V) * J, axis=1))
    se[se == 0] = jnp.nan  # expect: JAX201
    return se


J = jnp.array([[0.0, 0.0], [1.0, 2.0], [0.5, 0.0]])
V = jnp.eye(2)
try:
    print(get_se_delta(J, V))
except TypeError as err:
    print(type(err).__name__, str(err)[:45])
