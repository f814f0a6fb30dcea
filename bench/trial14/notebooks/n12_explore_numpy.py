# %% [1]
import numpy as np
import jax.numpy as jnp
# %% [2]
data = np.random.default_rng(0).normal(size=(100, 3))
data[data < -2] = -2.0
data[:, 2] += 1.0
# %% [4]
stats = {"mean": data.mean(axis=0), "std": data.std(axis=0)}
normed = (data - stats["mean"]) / stats["std"]
# %% [3]
x = jnp.asarray(data)
x = x.at[0].set(0.0)
x.sum()
# %% [5]
jnp.corrcoef(jnp.asarray(normed).T)
