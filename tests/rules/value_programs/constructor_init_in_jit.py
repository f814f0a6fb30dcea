# runtime: jax.errors.TracerBoolConversionError
# clean runtime: check: assert float(out) == 2.0
import jax
import jax.numpy as jnp


@jax.tree_util.register_pytree_node_class
class Clipped:
    def __init__(self, value, limit):
        if value > limit:  # expect: JAX701  # clean: value = jnp.minimum(value, limit)
            value = limit  # clean:
        self.value = value
        self.limit = limit

    def tree_flatten(self):
        return (self.value,), (self.limit,)

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(children[0], aux[0])


@jax.jit
def clip(x):
    return Clipped(x, 2.0).value  # its __init__ runs inside the trace, given a tracer


out = clip(jnp.array(3.0))
