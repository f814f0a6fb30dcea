# Sampling noise in a Python loop, forgetting to split the key.
import jax
import jax.numpy as jnp

key = jax.random.key(0)
x = jnp.zeros(3)
for t in range(4):
    noise = jax.random.normal(key, (3,))  # expect: JAX602
    x = x + noise
print(x)
