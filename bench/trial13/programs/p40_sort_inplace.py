# Summing a Python list with jnp.sum, as np.sum allows.
import jax.numpy as jnp

vals = jnp.array([3.0, 1.0, 2.0])
total = jnp.sum([1.0, 2.0, 3.0])  # expect: JAX501
print(vals, total)
