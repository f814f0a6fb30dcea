# Initialising two layers with the same key.
import jax
import jax.numpy as jnp

key = jax.random.PRNGKey(0)
W1 = jax.random.normal(key, (4, 4))
W2 = jax.random.normal(key, (4, 4))  # expect: JAX602
print(jnp.allclose(W1, W2))
