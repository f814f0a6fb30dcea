# Learned that .at exists but forgot it returns a copy.
import jax.numpy as jnp

mask = jnp.ones(5)
mask.at[0].set(0.0)  # expect: JAX203
mask.at[-1].set(0.0)  # expect: JAX203
print(mask)
