# Splitting the key each iteration; correct.
import jax
import jax.numpy as jnp

key = jax.random.key(0)
samples = []
for t in range(4):
    key, sub = jax.random.split(key)
    samples.append(jax.random.uniform(sub, (2,)))
print(jnp.stack(samples))
