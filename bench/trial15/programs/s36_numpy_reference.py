# My NumPy reference implementation, kept next to the JAX one for comparison.
import jax.numpy as jnp
import numpy as np


def rk4_numpy(f, y0, dt, n):
    ys = np.zeros((n + 1, len(y0)))
    ys[0] = y0
    for i in range(n):
        y = ys[i]
        k1 = f(y)
        k2 = f(y + dt / 2 * k1)
        k3 = f(y + dt / 2 * k2)
        k4 = f(y + dt * k3)
        ys[i + 1] = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return ys


ref = rk4_numpy(lambda y: np.array([y[1], -y[0]]), np.array([1.0, 0.0]), 0.01, 100)
ref[np.abs(ref) < 1e-12] = 0.0
print(jnp.allclose(jnp.asarray(ref[-1]), jnp.array([np.cos(1.0), -np.sin(1.0)]), atol=1e-4))
