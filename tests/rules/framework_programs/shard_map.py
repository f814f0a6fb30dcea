# runtime: jax.errors.TracerBoolConversionError
from functools import partial

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((1,), ("i",))


@partial(jax.shard_map, mesh=mesh, in_specs=P(), out_specs=P())
def body(x):
    if x.sum() > 0:  # expect: JAX701  # clean: x = jnp.where(x.sum() > 0, -x, x)
        x = -x  # clean:
    return x


@jax.jit
def step(x):
    return body(x)


out = step(jnp.ones(4))
