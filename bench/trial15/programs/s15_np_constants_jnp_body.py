# NumPy for constants and setup, jnp inside the jitted function.
import jax
import jax.numpy as jnp
import numpy as np

HBAR = 1.054571817e-34
masses = np.array([1.0, 12.0, 16.0])
masses[0] = 1.008  # hydrogen, corrected
grid = np.linspace(-5, 5, 201)


@jax.jit
def kinetic(p):
    return jnp.sum(p**2 / (2 * jnp.asarray(masses)))


p = jnp.array([0.1, 0.2, 0.3])
print(kinetic(p), grid[100], np.sum(masses), HBAR > 0)
