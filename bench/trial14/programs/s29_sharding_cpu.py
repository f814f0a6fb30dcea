# Trying out sharding on my laptop (one CPU device).
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()).reshape(1, 1), ("data", "model"))
x = jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P("data", None)))
w = jax.device_put(jnp.ones((4, 2)), NamedSharding(mesh, P(None, "model")))


@jax.jit
def matmul(x, w):
    y = x @ w
    return jax.lax.with_sharding_constraint(y, NamedSharding(mesh, P("data", "model")))


y = matmul(x, w)
print(y.sharding, y.sum())
