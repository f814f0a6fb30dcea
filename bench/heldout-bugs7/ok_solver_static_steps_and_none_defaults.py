# ok: a solver whose step limit is static (static_argnames) and whose optional arguments
# are tested with `is None`; a model check made on the host, outside any transformation.
import functools

import jax
import jax.numpy as jnp
import numpy as np


def checkpointed_while_loop(cond_fun, body_fun, init_val, max_steps=None):
    if max_steps is None:
        return jax.lax.while_loop(cond_fun, body_fun, init_val)
    if max_steps == 1:
        return body_fun(init_val)
    return jax.lax.while_loop(cond_fun, body_fun, init_val)


@functools.partial(jax.jit, static_argnames="max_steps")
def solve(y0, max_steps=4096):
    def cond_fun(carry):
        t, _, step = carry
        return (t < 1.0) & (step < max_steps)

    def body_fun(carry):
        t, y, step = carry
        return t + 0.01, y - 0.01 * y, step + 1

    return checkpointed_while_loop(cond_fun, body_fun, (0.0, y0, 0), max_steps=max_steps)[1]


print(solve(jnp.ones(2), max_steps=1000))

x_values = np.arange(0, 1e2, dtype=float)


def forward(x, a, b):
    return b + a * x


a_init = 10.0
if a_init < 5:
    print("small slope")
print(jax.jit(forward)(x_values, a_init, 150.0)[:3])
