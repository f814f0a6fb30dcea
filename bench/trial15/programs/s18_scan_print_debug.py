# Why does my heat equation blow up? Print the max inside the scan.
import jax
import jax.numpy as jnp


def heat_step(u, _):
    lap = jnp.roll(u, 1) - 2 * u + jnp.roll(u, -1)
    u = u + 0.6 * lap
    print("max u", jnp.max(u))  # expect: JAX101
    return u, jnp.max(u)


u0 = jnp.zeros(50).at[25].set(1.0)
u, maxima = jax.lax.scan(heat_step, u0, None, length=100)
print(maxima[-1])
