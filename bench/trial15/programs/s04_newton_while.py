# Newton's method for the van der Waals volume, jitted for speed.
import jax
import jax.numpy as jnp

a, b, R = 3.640, 0.04267, 0.08314


def pressure_residual(V, T, P):
    return R * T / (V - b) - a / V**2 - P


@jax.jit
def newton(V0, T, P, tol=1e-8):
    V = V0
    dfdV = jax.grad(pressure_residual)
    while jnp.abs(pressure_residual(V, T, P)) > tol:  # expect: JAX701
        V = V - pressure_residual(V, T, P) / dfdV(V, T, P)
    return V


print(newton(1.0, 300.0, 10.0))
