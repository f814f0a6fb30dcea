# Passing the layer sizes as a list to a static argument.
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="sizes")
def init(key, sizes):
    keys = jax.random.split(key, len(sizes) - 1)
    return [jax.random.normal(k, (m, n)) for k, m, n in zip(keys, sizes[:-1], sizes[1:])]


params = init(jax.random.key(0), sizes=[3, 4, 2])  # expect: JAX1002
print([p.shape for p in params])
