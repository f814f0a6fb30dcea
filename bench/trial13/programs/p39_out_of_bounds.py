# Off-by-one indexing that NumPy would catch.
import jax.numpy as jnp

scores = jnp.arange(5.0)
last = scores[5]  # expect: JAX301
print(last)
