# ok: the class is a registered pytree (its arrays are children), so jitted methods see new
# values; a frozen dataclass with value hashing is a safe static argument.
import dataclasses
from functools import partial

import jax
import jax.numpy as jnp
from jax.tree_util import register_pytree_node_class


@register_pytree_node_class
class AspectRatio:
    def __init__(self, target, weight=1.0):
        self.target = target
        self.weight = weight

    @jax.jit
    def compute(self, R_lmn):
        return self.weight * (jnp.sum(R_lmn**2) - self.target)

    def tree_flatten(self):
        return (self.target, self.weight), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


@dataclasses.dataclass(frozen=True)
class Config:
    some_value: int


@partial(jax.jit, static_argnums=1)
def do_stuff(data, config):
    return data * config.some_value


obj = AspectRatio(jnp.float32(5.0))
R_lmn = jnp.array([1.0, 2.0])
print(obj.compute(R_lmn))
obj = AspectRatio(jnp.float32(3.0))
print(obj.compute(R_lmn))
print(do_stuff(jnp.arange(4.0), Config(3)))
