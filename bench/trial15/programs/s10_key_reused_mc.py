# Monte Carlo estimate of pi: the key is made once, like np.random.seed(0).
import jax
import jax.numpy as jnp

key = jax.random.PRNGKey(0)
estimates = []
for batch in range(5):
    pts = jax.random.uniform(key, (10000, 2))  # expect: JAX602
    inside = jnp.sum(jnp.sum(pts**2, axis=1) < 1.0)
    estimates.append(4 * inside / 10000)
print(estimates)
