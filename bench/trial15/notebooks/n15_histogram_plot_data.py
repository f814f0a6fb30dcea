# %% [1]
import jax
import jax.numpy as jnp
import numpy as np
# %% [2]
key = jax.random.PRNGKey(7)
key, k_pos, k_vel = jax.random.split(key, 3)
pos = jax.random.uniform(k_pos, (5000,))
vel = jax.random.normal(k_vel, (5000,))
# %% [3]
counts, edges = np.histogram(np.asarray(vel), bins=30)
speeds = np.abs(np.asarray(vel))
speeds[speeds > 3] = 3.0
# %% [4]
print(counts.sum(), edges[0] < edges[-1], speeds.max(), float(pos.mean()))
