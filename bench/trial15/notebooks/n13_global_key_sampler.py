# %% [1]
import jax
import jax.numpy as jnp
# %% [2]
key = jax.random.PRNGKey(0)  # seeded once, like np.random.seed(0)
# %% [3]
def maxwell_velocities(n, kT=1.0, m=1.0):
    return jnp.sqrt(kT / m) * jax.random.normal(key, (n, 3))
# %% [4]
v1 = maxwell_velocities(1000)
v2 = maxwell_velocities(1000)  # expect: JAX602
print(jnp.allclose(v1, v2))
