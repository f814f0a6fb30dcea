# %% [1]
import jax
import jax.numpy as jnp
key = jax.random.PRNGKey(2024)  # like np.random.seed(2024)
# %% [2]
positions = jax.random.normal(key, (100, 3))
# %% [3]
velocities = jax.random.normal(key, (100, 3))  # expect: JAX602
# %% [4]
print(jnp.corrcoef(positions[:, 0], velocities[:, 0])[0, 1])
