# Damped pendulum, RK4, ported line for line from my NumPy script.
import jax.numpy as jnp


def rhs(y, gamma=0.1, omega0=2.0):
    theta, v = y
    return jnp.array([v, -gamma * v - omega0**2 * jnp.sin(theta)])


def rk4(y0, dt, n_steps):
    ys = jnp.zeros((n_steps + 1, 2))
    ys[0] = y0  # expect: JAX201
    for i in range(n_steps):
        y = ys[i]
        k1 = rhs(y)
        k2 = rhs(y + 0.5 * dt * k1)
        k3 = rhs(y + 0.5 * dt * k2)
        k4 = rhs(y + dt * k3)
        ys[i + 1] = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)  # expect: JAX201
    return ys


traj = rk4(jnp.array([1.0, 0.0]), 0.01, 1000)
print(traj[-1])
