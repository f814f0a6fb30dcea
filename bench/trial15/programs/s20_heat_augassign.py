# Explicit finite differences for the heat equation, NumPy-style update of the interior.
import jax.numpy as jnp


def diffuse(u, alpha, n_steps):
    for _ in range(n_steps):
        lap = u[2:] - 2 * u[1:-1] + u[:-2]
        u[1:-1] += alpha * lap  # expect: JAX202
    return u


u0 = jnp.zeros(64).at[32].set(1.0)
print(diffuse(u0, 0.25, 100).sum())
