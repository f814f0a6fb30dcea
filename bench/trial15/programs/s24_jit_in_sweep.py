# Parameter sweep: a jitted right-hand side per spring constant.
import jax
import jax.numpy as jnp


def simulate(step, x0, n):
    x, v = x0, 0.0
    for _ in range(n):
        x, v = step(x, v)
    return x


for k in [0.5, 1.0, 2.0]:
    step = jax.jit(lambda x, v: (x + 0.01 * v, v - 0.01 * k * x))  # expect: JAX1001
    print(k, simulate(step, jnp.float32(1.0), 100))
