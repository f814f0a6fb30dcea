# Critical damping check over many parameter sets with vmap.
import jax
import jax.numpy as jnp


def decay_rate(gamma, omega0):
    if gamma > 2 * omega0:  # expect: JAX701
        return gamma / 2 - jnp.sqrt(gamma**2 / 4 - omega0**2)
    return gamma / 2


gammas = jnp.linspace(0.1, 5.0, 8)
print(jax.vmap(decay_rate, in_axes=(0, None))(gammas, 1.0))
