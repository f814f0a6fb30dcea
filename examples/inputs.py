"""Python lists where JAX wants arrays (JAX501)."""

import jax.numpy as jnp

total = jnp.sum([1.0, 2.0, 3.0])  # TypeError: sum requires ndarray or scalar arguments
weights = [0.2, 0.3, 0.5]
average = jnp.dot(weights, jnp.arange(3.0))
fine = jnp.sum(jnp.asarray(weights))
