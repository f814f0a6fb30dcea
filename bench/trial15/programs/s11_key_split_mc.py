# Monte Carlo estimate of pi with a fresh subkey per batch.
import jax
import jax.numpy as jnp

key = jax.random.PRNGKey(0)
estimates = []
for batch in range(5):
    key, sub = jax.random.split(key)
    pts = jax.random.uniform(sub, (10000, 2))
    inside = jnp.sum(jnp.sum(pts**2, axis=1) < 1.0)
    estimates.append(4 * inside / 10000)
print(jnp.mean(jnp.array(estimates)))
