"""64-bit types and casts (JAX901-JAX903)."""

import jax
import jax.numpy as jnp

x = jnp.zeros(3, dtype=jnp.float64)  # silently float32 without jax_enable_x64
pixels = jnp.linspace(0.0, 300.0, 5).astype(jnp.uint8)  # saturates where NumPy wraps
jax.config.update("jax_enable_x64", True)  # too late for x above
