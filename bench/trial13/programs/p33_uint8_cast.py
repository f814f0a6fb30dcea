# Converting a float image to uint8 as in NumPy.
import jax
import jax.numpy as jnp

img = jax.random.normal(jax.random.key(0), (4, 4)) * 200
pixels = (img + 128).astype(jnp.uint8)  # expect: JAX903
print(pixels.min(), pixels.max())
