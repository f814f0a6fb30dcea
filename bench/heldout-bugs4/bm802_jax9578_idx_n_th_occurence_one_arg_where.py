# Source: https://github.com/jax-ml/jax/issues/9578 ("jit-compilable "idx_n_th_occurence"")
# SimiPixel's function works without jit but not with it: the one-argument
# `jnp.where(arr==arr)` has a data-dependent output shape. jakevdp: pass `size=` (n + 1 or
# len(operand)).
# Verbatim (call and try/except added).
import jax
import jax.numpy as jnp


@jax.jit
def idx_n_th_occurence(operand, occurence, n=0):
    arr = jnp.where(operand == occurence, operand, jnp.nan)
    return jnp.where(arr == arr)[n]  # expect: JAX802


try:
    print(idx_n_th_occurence(jnp.array([1.0, 2.0, 1.0, 3.0]), 1.0))
except jax.errors.ConcretizationTypeError as err:
    print(type(err).__name__)
print(jnp.where(jnp.array([1.0, 2.0, 1.0, 3.0]) == 1.0, size=1)[0])
