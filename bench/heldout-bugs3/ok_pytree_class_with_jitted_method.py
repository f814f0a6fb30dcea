# ok: a class registered as a pytree may have jitted methods (self is flattened to arrays).
import jax
import jax.numpy as jnp
from jax import tree_util


class CustomClass:
    def __init__(self, mul):
        self.mul = mul

    @jax.jit
    def calc(self, x):
        return x * self.mul


tree_util.register_pytree_node(
    CustomClass, lambda c: ((c.mul,), None), lambda _, children: CustomClass(*children)
)


c = CustomClass(jnp.array(2.0))
print(c.calc(jnp.arange(3.0)))
c = CustomClass(jnp.array(3.0))
print(c.calc(jnp.arange(3.0)))
