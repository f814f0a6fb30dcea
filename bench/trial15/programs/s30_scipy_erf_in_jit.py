# Diffusion profile with scipy.special.erf inside a jitted function.
import jax
import jax.numpy as jnp
from scipy.special import erf


@jax.jit
def concentration(x, t, D=1.0):
    return 0.5 * (1 - erf(x / jnp.sqrt(4 * D * t)))  # expect: JAX703


print(concentration(jnp.linspace(0, 2, 5), 0.5))
