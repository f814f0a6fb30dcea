# Particle in a box: enforce psi = 0 at the walls after each step.
import jax.numpy as jnp

n = 101
x = jnp.linspace(0.0, 1.0, n)
psi = jnp.exp(-((x - 0.5) ** 2) / 0.01)
for step in range(10):
    lap = (jnp.roll(psi, 1) - 2 * psi + jnp.roll(psi, -1)) / (x[1] - x[0]) ** 2
    psi = psi + 1e-6 * lap
    psi.at[0].set(0.0)  # expect: JAX203
    psi.at[-1].set(0.0)  # expect: JAX203
print(psi[0], psi[-1])
