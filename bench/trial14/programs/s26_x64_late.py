import jax
import jax.numpy as jnp

grid = jnp.linspace(0.0, 1.0, 11)
jax.config.update("jax_enable_x64", True)  # expect: JAX902
fine = jnp.linspace(0.0, 1.0, 11, dtype=jnp.float64)
print(grid.dtype, fine.dtype)
