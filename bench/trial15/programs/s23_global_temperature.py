# Temperature sweep: the Boltzmann weights read the global temperature.
import jax
import jax.numpy as jnp

kB = 1.0
T = 1.0
levels = jnp.array([0.0, 1.0, 2.0, 3.0])


@jax.jit
def mean_energy(E):
    w = jnp.exp(-E / (kB * T))  # expect: JAX102
    return jnp.sum(E * w) / jnp.sum(w)


for T in [0.5, 1.0, 2.0, 4.0]:
    print(T, mean_energy(levels))
