# Lorenz system with jax.experimental.ode.odeint (scipy.integrate.odeint style).
import jax.numpy as jnp
from jax.experimental.ode import odeint


def lorenz(state, t, sigma, rho, beta):
    x, y, z = state
    return jnp.array([sigma * (y - x), x * (rho - z) - y, x * y - beta * z])


t = jnp.linspace(0.0, 2.0, 201)
sol = odeint(lorenz, jnp.array([1.0, 1.0, 1.0]), t, 10.0, 28.0, 8.0 / 3.0)
print(sol.shape, sol[-1])
