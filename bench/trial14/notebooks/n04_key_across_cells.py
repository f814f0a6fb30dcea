# %% [1]
import jax
import jax.numpy as jnp

key = jax.random.key(42)
# %% [2]
W1 = jax.random.normal(key, (3, 3)) * 0.1
# %% [3]
W2 = jax.random.normal(key, (3, 3)) * 0.1  # expect: JAX602
# %% [4]
print(jnp.allclose(W1, W2))
