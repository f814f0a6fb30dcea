# runtime: jax.errors.NonConcreteBooleanIndexError
import equinox as eqx
import jax.numpy as jnp
from jaxtyping import Array, Bool, Float


class Masked(eqx.Module):
    values: Float[Array, "..."]
    keep: Bool[Array, "..."]

    def total(self):
        return self.values[self.keep].sum()  # expect: JAX801


@eqx.filter_jit
def run(m):
    return m.total()


out = run(Masked(jnp.arange(3.0), jnp.arange(3) > 0))
