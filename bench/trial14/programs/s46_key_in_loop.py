import jax
import jax.numpy as jnp

key = jax.random.key(0)
w = jnp.zeros(3)
for epoch in range(3):
    noise = jax.random.normal(key, (3,))  # expect: JAX602
    w = w + 0.1 * noise
    print(epoch, noise)
