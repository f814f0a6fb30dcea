# Source: https://github.com/secretflow/secretflow/issues/406 ("Weird jax operations in spu")
# Method 2 of the same k-means: "The jax official documents says using where() func instead of
# boolean mask" -> `jnp.mean(X[jnp.where(labels == j)], axis=0)` fails with "The size argument
# of jnp.nonzero must be statically specified". One-argument where is nonzero.
# Adapted: SPU replaced by jax.jit; the user's comprehension kept.
import jax
import jax.numpy as jnp


def update_centroids(X, labels, n_clusters=3):
    centroids = jnp.array([jnp.mean(X[jnp.where(labels == j)], axis=0) for j in range(n_clusters)])  # expect: JAX802
    return centroids


X = jax.random.normal(jax.random.PRNGKey(1), (60, 2))
labels = jnp.arange(60) % 3
print("eager:", update_centroids(X, labels).shape)
try:
    print(jax.jit(update_centroids)(X, labels))
except Exception as err:
    print(type(err).__name__, str(err).splitlines()[0])
