# Source: https://github.com/jax-ml/jax/issues/9024 ("JIT behaves surprisingly with PyTrees as static arguments")
# jakevdp: a custom pytree passed as a static argument is hashed by its wrapper class, so
# after `m.data += 1` the jitted function hits the cache and returns the old data:
# get_data(m) is [1 2 3 4], jit_get_data(m) still [0 1 2 3]. No error.
# Verbatim (the example; a check line added).
import jax.numpy as jnp
from jax import jit
from jax.tree_util import register_pytree_node


class MyClass:
    def __init__(self, data):
        self.data = data


register_pytree_node(MyClass, lambda v: ((v.data,), None), lambda _, data: MyClass(*data))

m = MyClass(jnp.arange(4))

get_data = lambda x: x.data
jit_get_data = jit(get_data, static_argnums=0)

print(get_data(m))
print(jit_get_data(m))

m.data += 1
print(get_data(m))
print(jit_get_data(m))  # expect: JAX402
print("stale:", bool((jit_get_data(m) != get_data(m)).any()))
