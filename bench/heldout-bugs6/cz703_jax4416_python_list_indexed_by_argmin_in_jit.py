# Source: https://github.com/jax-ml/jax/issues/4416 (comment by Joy-Preetha, 2021-02-22)
# A face matcher jitted with jit(match_faces3): for each descriptor and database identity it
# collects cosine distances in a Python list and picks `dist[jnp.argmin(jnp.asarray(dist))]`.
# Under jit the argmin is traced and indexing the list with it fails:
# TracerIntegerConversionError. (The comment's first error came from calling the jitted
# function with a device object; called with the descriptors, this is the next one.)
# Adapted (the user's loops; the file write and timing removed, a small database added).
import jax
import jax.numpy as jnp
import numpy as np
from jax import jit


def cosine_dist(a, b):
    return 1.0 - jnp.dot(a, b) / (jnp.linalg.norm(a) * jnp.linalg.norm(b))


database = [("ann", [jnp.ones(4), jnp.arange(4.0)]), ("bob", [jnp.array([1.0, 0, 0, 0])])]


def match_faces3(desc):
    distances = np.empty((len(desc), len(database)))
    for i, descr in enumerate(desc):
        for j, identity in enumerate(database):
            dist = []
            for k, id_desc in enumerate(identity[1]):
                dist.append(cosine_dist(descr, id_desc))
            distances[i][j] = dist[jnp.argmin(jnp.asarray(dist))]  # expect: JAX703
    return jnp.asarray(distances)


descriptors = jnp.array([[1.0, 1.0, 1.0, 1.0], [1.0, 0.0, 0.0, 0.0]])
print(match_faces3(descriptors))  # eager: works
matches_jit = jit(match_faces3)
try:
    matches_jit(descriptors)
except TypeError as err:
    print(type(err).__name__)
