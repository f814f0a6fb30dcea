from typing import NamedTuple

import jax
import jax.numpy as jnp


class Buffer(NamedTuple):
    data: jax.Array
    idx: jax.Array


def init_buffer(capacity, dim):
    return Buffer(jnp.zeros((capacity, dim)), jnp.array(0))


def push(buf: Buffer, item):
    slot = buf.idx % buf.data.shape[0]
    buf.data.at[slot].set(item)  # expect: JAX203
    return Buffer(buf.data, buf.idx + 1)
