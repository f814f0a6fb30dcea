# ok: masked reductions with jnp.where, nonzero/argwhere with size=, boolean indexing on
# concrete (eager) arrays, one-hot k-means update inside jit.
import jax
import jax.numpy as jnp


@jax.jit
def masked_sum(x, y):
    mask = jnp.arange(x.shape[0]) < y
    return jnp.where(mask, x, 0.0).sum()


@jax.jit
def kmeans_step(X, centroids):
    d = jnp.linalg.norm(X[:, None, :] - centroids[None, :, :], axis=-1)
    labels = jnp.argmin(d, axis=1)
    onehot = jax.nn.one_hot(labels, centroids.shape[0])
    counts = onehot.sum(axis=0)
    sums = onehot.T @ X
    return jnp.where(counts[:, None] > 0, sums / jnp.maximum(counts[:, None], 1.0), centroids)


@jax.jit
def nonzero_padded(x):
    return jnp.stack(jnp.nonzero(x, size=4, fill_value=-1))


x = jnp.arange(6.0)
print(masked_sum(x, 3))
X = jax.random.normal(jax.random.PRNGKey(0), (50, 2))
print(kmeans_step(X, X[:3]).shape)
print(nonzero_padded(jnp.array([[1, 0], [0, 3]])))
print(x[x > 2].sum())  # eager boolean indexing is fine
