# OK (no findings expected): sizes computed with Python/NumPy from static shapes inside
# jit (counterparts of ts803_jax4409, ts803_jax4449, ts803_jax5208): arr.size + 1,
# np.log2 of a shape, int() of a static argument, linspace with a Python int.
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax import random


@jax.jit
def custom_ones(arr):
    count = arr.size + 1
    return jnp.ones((count,))


@jax.jit
def recluster(key, mu):
    num_clusters = mu.shape[0]
    depth = int(np.log2(num_clusters)) + 1
    return random.split(key, 2 ** (depth - 1) - 1)


@partial(jax.jit, static_argnames=("dt",))
def grid(t0, tf, dt=0.1):
    num_steps = max(int(round(1.0 / dt)), 1)
    return jnp.linspace(t0, tf, num_steps + 1)


@partial(jax.jit, static_argnums=1)
def pad_rows(first_row, pad_to_length):
    out = jnp.zeros((pad_to_length, first_row.shape[0]), first_row.dtype)
    return out.at[0].set(first_row)


print(custom_ones(jnp.ones(3)).shape, recluster(random.PRNGKey(0), jnp.zeros((8, 2))).shape)
print(grid(0.0, 1.0).shape, pad_rows(jnp.array([1, 2]), 4))
