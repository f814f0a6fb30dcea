# Final amplitude of a damped oscillator over a grid of damping and frequency values.
import jax
import jax.numpy as jnp


def final_amplitude(gamma, omega):
    def body(i, state):
        x, v = state
        a = -gamma * v - omega**2 * x
        return x + 0.01 * v, v + 0.01 * a

    x, v = jax.lax.fori_loop(0, 2000, body, (1.0, 0.0))
    return jnp.sqrt(x**2 + (v / omega) ** 2)


gammas = jnp.linspace(0.0, 1.0, 11)
omegas = jnp.linspace(0.5, 3.0, 6)
grid = jax.vmap(jax.vmap(final_amplitude, in_axes=(None, 0)), in_axes=(0, None))(gammas, omegas)
print(grid.shape, grid[0, 0], grid[-1, -1])
