# Value at the right edge of the grid: N points, and I wrote psi[N] (Fortran habit).
import jax.numpy as jnp

N = 100
x = jnp.linspace(0.0, 1.0, N)
psi = jnp.sin(jnp.pi * x)
print(psi[N])  # expect: JAX301
