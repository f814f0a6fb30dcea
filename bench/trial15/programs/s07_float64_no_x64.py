# Energies need double precision: I ask for float64 like in NumPy.
import jax.numpy as jnp

energies = jnp.array([1.0000001, 1.0000002, 1.0000003], dtype=jnp.float64)  # expect: JAX901
gaps = jnp.diff(energies)
print(energies.dtype, gaps)
