# Number of steps as an argument of the jitted integrator.
import jax
import jax.numpy as jnp


@jax.jit
def decay(y0, k, dt, n_steps):
    y = y0
    for _ in range(n_steps):  # expect: JAX703
        y = y * (1 - k * dt)
    return y


print(decay(jnp.float32(1.0), 0.5, 0.01, 100))
