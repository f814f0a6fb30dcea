# %% [1]
import jax.numpy as jnp
import numpy as np
# %% [2]
img_np = np.zeros((4, 4))
img_np[1:3, 1:3] = 1.0
img = jnp.asarray(img_np)
# %% [3]
img[0, 0] = 5.0  # expect: JAX201
img
# %% [4]
img = img.at[0, 0].set(5.0)
img.sum()
