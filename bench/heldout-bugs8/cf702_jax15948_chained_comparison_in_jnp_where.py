# Source: https://github.com/jax-ml/jax/issues/15948 ("`jnp.where` condition does not accept
# multiple")
# yonghakim selects by a wavelength band with the chained comparison `500 < wavelength <= 600`
# inside `jnp.where`; NumPy and eager jax accept it, but under jit the chain is Python's `and` of
# two traced comparisons: ConcretizationTypeError "The problem arose with the `bool` function".
# Verbatim (the report's `aa`; evidence added).
import jax
import jax.numpy as jnp


def aa(wavelength):
    jnp.where(500 < wavelength, 0, 2)
    print("OK")
    jnp.where(500 < wavelength <= 600, 0, 2)  # expect: JAX702
    print("OK")


aa(900)
try:
    jax.jit(aa)(900)
except jax.errors.ConcretizationTypeError as err:
    print(type(err).__name__)
