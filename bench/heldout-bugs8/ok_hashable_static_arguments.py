# ok: static arguments are hashable Python values (a tuple of step sizes, an int, a string);
# arrays stay dynamic arguments.
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=(2, 3))
def run(position, momentum, step_sizes, method):
    for step_size in step_sizes:
        momentum = momentum - 0.5 * step_size * position
        position = position + step_size * momentum
    return position if method == "position" else momentum


@partial(jax.jit, static_argnames=("num",))
def grid(scale, num):
    return jnp.linspace(-1.0, 1.0, num) * scale


print(run(jnp.ones(2), jnp.ones(2), (0.1, 0.2, 0.4), "position"))
print(grid(2.0, num=5))
