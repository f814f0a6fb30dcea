# Sharding on one CPU device with a mesh and NamedSharding; correct.
import jax
import jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((1,), ("data",))
sharding = NamedSharding(mesh, P("data"))
x = jax.device_put(jnp.arange(8.0).reshape(8, 1), sharding)


@jax.jit
def f(x):
    return jnp.sin(x) * 2


y = f(x)
print(y.sharding, y.shape)
