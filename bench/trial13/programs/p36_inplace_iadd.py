# Accumulating counts in place.
import jax
import jax.numpy as jnp

labels = jnp.array([0, 2, 1, 2, 2])
counts = jnp.zeros(3, dtype=jnp.int32)
for l in labels:
    counts[l] += 1  # expect: JAX202
print(counts)
