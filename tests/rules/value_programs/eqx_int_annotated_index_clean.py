# runtime: ok
import equinox as eqx
import jax.numpy as jnp
from jaxtyping import Array, Float, Int


class Picked(eqx.Module):
    values: Float[Array, "..."]
    index: Int[Array, "..."]

    def total(self):
        return self.values[self.index].sum()


@eqx.filter_jit
def run(m):
    return m.total()


out = run(Picked(jnp.arange(3.0), jnp.array([0, 2])))
assert float(out) == 2.0
