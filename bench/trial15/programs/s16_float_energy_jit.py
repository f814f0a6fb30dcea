# Total energy logged as a Python float inside the jitted step.
import jax
import jax.numpy as jnp


@jax.jit
def verlet_step(x, v, dt):
    a = -x
    v_half = v + 0.5 * dt * a
    x_new = x + dt * v_half
    v_new = v_half + 0.5 * dt * (-x_new)
    energy = float(0.5 * jnp.sum(v_new**2 + x_new**2))  # expect: JAX703
    return x_new, v_new, energy


x, v = jnp.array([1.0, 0.0]), jnp.array([0.0, 1.0])
x, v, e = verlet_step(x, v, 0.01)
print(e)
