"""Out-of-bounds indexing is silent in JAX (JAX301)."""

import jax.numpy as jnp

values = jnp.arange(10)
last = values[11]  # clamps to values[9]: no IndexError
grid = jnp.zeros((3, 3))
row = grid[3]  # clamps to the last row
buffer = jnp.ones(4)
updated = buffer.at[5].set(0.0)  # the update is dropped
