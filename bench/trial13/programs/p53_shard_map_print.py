# Printing the local shard inside shard_map.
from functools import partial

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((1,), ("d",))


@jax.jit
@partial(jax.shard_map, mesh=mesh, in_specs=P("d"), out_specs=P("d"))
def local_norm(x):
    print("local shard", x)  # expect: JAX101
    return x / jnp.sqrt(jnp.sum(x * x))


x = jax.device_put(jnp.arange(1.0, 5.0), NamedSharding(mesh, P("d")))
print(local_norm(x))
