import functools

import jax


def compiled(fn=None, *, static=()):
    if fn is None:
        return functools.partial(compiled, static=static)
    return jax.jit(fn, static_argnames=static)
