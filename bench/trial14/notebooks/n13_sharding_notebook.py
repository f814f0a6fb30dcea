# %% [1]
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P
# %% [2]
mesh = jax.make_mesh((1,), ("batch",))
sharding = NamedSharding(mesh, P("batch"))
x = jax.device_put(jnp.arange(8.0), sharding)
x.sharding
# %% [3]
@jax.jit
def scale(x):
    return x * 2.0


y = scale(x)
jax.debug.visualize_array_sharding(y)
# %% [4]
print(y.addressable_shards[0].data)
