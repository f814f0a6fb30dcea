# The same pendulum, now with lax.scan as the docs suggest.
import jax
import jax.numpy as jnp


def rhs(y, gamma, omega0):
    theta, v = y
    return jnp.array([v, -gamma * v - omega0**2 * jnp.sin(theta)])


def rk4_step(y, dt, gamma, omega0):
    k1 = rhs(y, gamma, omega0)
    k2 = rhs(y + 0.5 * dt * k1, gamma, omega0)
    k3 = rhs(y + 0.5 * dt * k2, gamma, omega0)
    k4 = rhs(y + dt * k3, gamma, omega0)
    return y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


@jax.jit
def integrate(y0, dt, gamma, omega0):
    def body(carry, _):
        y, t = carry
        y_next = rk4_step(y, dt, gamma, omega0)
        return (y_next, t + dt), y_next

    (y_final, t_final), ys = jax.lax.scan(body, (y0, 0.0), None, length=1000)
    return ys, t_final


ys, t_end = integrate(jnp.array([1.0, 0.0]), 0.01, 0.1, 2.0)
print(ys.shape, float(t_end), ys[-1])
