# Source: https://github.com/GalacticDynamics/galax/pull/692 ("Bugfix: Use "jnp.logical_or"
# instead of "or" for JAX tracer support")
# "Inside of a JITted function, we create a potential instance ... get a
# TracerBoolConversionError - I think it's related to the Python `or` in the `__check_init__`".
# Adapted: an equinox potential with a __check_init__ validating its parameters with `or`,
# built inside a jitted function (galax's quantity/unit machinery left out).
import equinox as eqx
import jax
import jax.numpy as jnp


class LeeSutoNFWPotential(eqx.Module):
    m: jax.Array
    r_s: jax.Array
    a: jax.Array

    def __check_init__(self):
        if jnp.any(self.a < 0) or jnp.any(self.r_s <= 0):  # expect: JAX702
            raise ValueError("a and r_s must be positive")

    def potential(self, r):
        return -self.m * jnp.log1p(r / self.r_s) / r * (1 + self.a)


@jax.jit
def energy_at(m, r_s, a, r):
    pot = LeeSutoNFWPotential(m=m, r_s=r_s, a=a)
    return pot.potential(r)


print("eager:", LeeSutoNFWPotential(jnp.array(1.0), jnp.array(2.0), jnp.array(0.1)).potential(3.0))
try:
    print(energy_at(1.0, 2.0, 0.1, 3.0))
except Exception as err:
    print(type(err).__name__, str(err).splitlines()[0])
