# runtime: jax.errors.TracerBoolConversionError
# clean runtime: check: assert abs(float(out) + 0.3054303) < 1e-5
import equinox as eqx
import jax
import jax.numpy as jnp


class Potential(eqx.Module):
    m: jax.Array
    r_s: jax.Array

    def __check_init__(self):  # runs after the generated __init__, inside the caller's trace
        if jnp.any(self.r_s <= 0):  # expect: JAX701  # clean: if self.r_s.ndim > 0:
            raise ValueError("r_s must be positive")

    def potential(self, r):
        return -self.m * jnp.log1p(r / self.r_s) / r


@jax.jit
def energy_at(m, r_s, r):
    return Potential(m=m, r_s=r_s).potential(r)


out = energy_at(jnp.array(1.0), jnp.array(2.0), 3.0)
