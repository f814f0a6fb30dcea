# ok: a frozen dataclass (value hash) as a static argument, replaced rather than mutated,
# and a custom pytree passed as a traced argument so its data changes are seen.
import dataclasses
from functools import partial

import jax
import jax.numpy as jnp
from jax.tree_util import register_pytree_node


@dataclasses.dataclass(frozen=True)
class Config:
    scale: float
    n: int


@partial(jax.jit, static_argnums=0)
def apply(config, x):
    return config.scale * x[: config.n]


class Holder:
    def __init__(self, data):
        self.data = data


register_pytree_node(Holder, lambda v: ((v.data,), None), lambda _, data: Holder(*data))


@jax.jit
def get_data(h):
    return h.data


cfg = Config(2.0, 3)
print(apply(cfg, jnp.arange(5.0)))
cfg = dataclasses.replace(cfg, scale=3.0)
print(apply(cfg, jnp.arange(5.0)))
h = Holder(jnp.arange(4))
print(get_data(h))
h.data += 1
print(get_data(h))
