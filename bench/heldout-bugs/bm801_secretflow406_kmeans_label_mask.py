# Source: https://github.com/secretflow/secretflow/issues/406 ("Weird jax operations in spu")
# A k-means step run through SPU (which traces with jax like jit): method 1
# `centroids = centroids.at[j].set(X[labels == j].mean(axis=0))` fails with
# NonConcreteBooleanIndexError: Array boolean indices must be concrete.
# Adapted: SPU's device replaced by jax.jit (same tracing); the user's names and loop kept.
import jax
import jax.numpy as jnp


def kmeans_step(X, centroids, n_clusters=3):
    d = jnp.linalg.norm(X[:, None, :] - centroids[None, :, :], axis=-1)
    labels = jnp.argmin(d, axis=1)
    for j in range(n_clusters):
        centroids = centroids.at[j].set(X[labels == j].mean(axis=0))  # expect: JAX801
    return centroids


X = jax.random.normal(jax.random.PRNGKey(0), (100, 2))
centroids = X[:3]
print("eager:", kmeans_step(X, centroids).shape)
try:
    print(jax.jit(kmeans_step)(X, centroids))
except Exception as err:
    print(type(err).__name__, str(err).splitlines()[0])
