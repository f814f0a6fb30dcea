# ok: static arguments are hashable (tuples, frozen dataclasses); Python lists are turned into
# arrays before jax.numpy functions; scalars broadcast; method jit through a bound method.
import dataclasses
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=(1,))
def first_plus(x, idx):
    return x[idx[0]] + 1


@dataclasses.dataclass(frozen=True)
class Config:
    scale: float = 2.0


@partial(jax.jit, static_argnums=(0,))
def scaled(cfg, x):
    return cfg.scale * x


class A1:
    def __init__(self):
        self.f = jax.jit(self.f)

    def f(self, x):
        return x


grads = {"w": jnp.ones((3, 2)), "b": jnp.ones(2)}
leaves = jax.tree_util.tree_leaves(grads)
total_norm = jnp.linalg.norm(jnp.stack([jnp.linalg.norm(g.ravel()) for g in leaves]))
dists = jnp.broadcast_to(1e10, (2, 1))
inputs = jnp.asarray([3, 1, 4])
inputs = jnp.append(inputs, jnp.array([5]))
print(first_plus(jnp.arange(3), (2,)), scaled(Config(), 3.0), A1().f(5), total_norm, dists.shape, inputs.tolist())
