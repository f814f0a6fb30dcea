# runtime: jax.errors.NonConcreteBooleanIndexError
# clean runtime: check: assert float(out) == 2.0
import equinox as eqx
import jax.numpy as jnp
from jaxtyping import Array, Bool, Float  # clean: from jaxtyping import Array, Float, Int


class Masked(eqx.Module):
    values: Float[Array, "..."]
    keep: Bool[Array, "..."]  # clean: keep: Int[Array, "..."]

    def total(self):
        return self.values[self.keep].sum()  # expect: JAX801


@eqx.filter_jit
def run(m):
    return m.total()


out = run(Masked(jnp.arange(3.0), jnp.arange(3) > 0))  # clean: out = run(Masked(jnp.arange(3.0), jnp.array([0, 2])))
