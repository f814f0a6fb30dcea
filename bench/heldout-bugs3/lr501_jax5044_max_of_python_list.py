# Source: https://github.com/jax-ml/jax/issues/5044 ("jax.numpy.max([1,2]) doesn't work")
# `jnp.max([1,2])` raised "TypeError: max requires ndarray or scalar arguments, got <class
# 'list'> at position 0."; jakevdp: explicitly cast lists to arrays.
# Verbatim; the error is printed.
import jax.numpy as jnp

try:
    jnp.max([1,2])  # expect: JAX501
except TypeError as err:
    print("TypeError:", err)
print(jnp.max(jnp.array([1,2])))
