import jax
import jax.numpy as jnp


@jax.jit
def step(x):
    y = jnp.tanh(x)
    jax.debug.print("y = {y}, max = {m}", y=y, m=jnp.max(y))
    return y * 2


for i in range(2):
    step(jnp.arange(3.0) + i)
