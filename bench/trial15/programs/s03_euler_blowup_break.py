# Explicit Euler for a stiff decay; stop early if it blows up (as in my NumPy version).
import jax
import jax.numpy as jnp


@jax.jit
def euler(y0, k, dt):
    y = y0
    for step in range(500):
        y = y - dt * k * y
        if jnp.abs(y) > 1e6:  # expect: JAX701
            break
    return y


print(euler(1.0, 50.0, 0.05))
