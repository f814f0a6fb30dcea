# shard_map with a psum over the data axis on one device; correct.
from functools import partial

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((1,), ("i",))


@jax.jit
@partial(jax.shard_map, mesh=mesh, in_specs=P("i"), out_specs=P())
def global_sum(x):
    return jax.lax.psum(jnp.sum(x, keepdims=True), "i")


x = jax.device_put(jnp.arange(8.0), NamedSharding(mesh, P("i")))
print(global_sum(x))
