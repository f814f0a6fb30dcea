# ok: sizes that drive shapes are static (static_argnums / static_argnames / Python ints),
# arange bounds offset after construction, scan length from a static argument.
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=0)
def test_arange(n):
    return jnp.arange(0, n, 1)


@jax.jit
def window(x):
    return jnp.arange(-1, 1) + x[0]


@partial(jax.jit, static_argnames=("length",))
def do_stuff(init, length):
    def f(carry, _):
        return carry + 1, carry

    return jax.lax.scan(f, init, xs=None, length=length)


@jax.jit
def pad_rows(x):
    n = x.shape[0]
    return jnp.zeros((n + 2, x.shape[1]), x.dtype).at[1 : n + 1].set(x)


print(test_arange(5))
print(window(jnp.array([3])))
print(do_stuff(0, length=4)[1])
print(pad_rows(jnp.ones((2, 3))).shape)
