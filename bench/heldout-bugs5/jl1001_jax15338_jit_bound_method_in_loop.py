# Source: https://github.com/jax-ml/jax/issues/15338 ("Recompilation of bounded methods")
# daskol jitted a bound method inside the loop: a.do is a new method object every time, so
# jax.jit(a.do, ...) misses the cache and traces (prints "A.do()") on every iteration, while
# jitting the free function do() traces once.
# Verbatim (the function half of the comparison dropped; a trace counter added).
import jax
from jax.tree_util import register_pytree_node_class

traces = []


@register_pytree_node_class
class A:
    def do(self, key, shape):
        traces.append("A.do()")
        return jax.random.uniform(key, shape)

    def tree_flatten(self):
        return (), {}

    @classmethod
    def tree_unflatten(cls, treedef, leaves):
        return cls(*leaves, **treedef)


a = A()
key = jax.random.PRNGKey(42)

for _ in range(3):
    key, subkey = jax.random.split(key)
    jax.jit(a.do, static_argnums=1)(subkey, (2, 3, 4))  # expect: JAX1001
print("traces:", len(traces))  # 3: one per iteration
