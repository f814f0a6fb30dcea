# Keep the trajectory: append every position to a list inside the jitted step.
import jax
import jax.numpy as jnp

trajectory = []


@jax.jit
def step(x, v, dt):
    v = v - dt * x
    x = x + dt * v
    trajectory.append(x)  # expect: JAX103
    return x, v


x, v = jnp.array(1.0), jnp.array(0.0)
for _ in range(3):
    x, v = step(x, v, 0.1)
print(jnp.stack(trajectory))
