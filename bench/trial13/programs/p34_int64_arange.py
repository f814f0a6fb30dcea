# Indices as int64, the NumPy default.
import jax.numpy as jnp

idx = jnp.arange(10, dtype="int64")  # expect: JAX901
print(idx.dtype)
