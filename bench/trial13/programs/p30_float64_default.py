# Expecting double precision like NumPy.
import jax.numpy as jnp
import numpy as np

x = jnp.array([1.0, 1e-10], dtype=jnp.float64)  # expect: JAX901
print(x.dtype, (x[0] + x[1]) - x[0])
print(np.float64(1.0) + 1e-10 - 1.0)
