# Potential energy of a chain, the NumPy functions left in by habit.
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def dihedral_energy(phi, k=1.0, n=3):
    return jnp.sum(k * (1 + np.cos(n * phi)))  # expect: JAX703


angles = jnp.linspace(-np.pi, np.pi, 7)
print(dihedral_energy(angles))
