import jax
import jax.numpy as jnp

from data import make_dataset

key = jax.random.PRNGKey(0)
x, y = make_dataset(key, n=1000, dim=1)
residual = y - x[:, 0]
# the "noise" should be independent of the inputs
print("corr(x, noise) =", float(jnp.corrcoef(x[:, 0], residual)[0, 1]))
