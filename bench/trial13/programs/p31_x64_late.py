# Enabling x64 after making some arrays.
import jax
import jax.numpy as jnp

a = jnp.ones(3)
jax.config.update("jax_enable_x64", True)  # expect: JAX902
b = jnp.ones(3)
print(a.dtype, b.dtype, (a + b).dtype)
