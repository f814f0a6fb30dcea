import functools

import jax


def compiled(fn=None, *, donate=()):
    """Project-wide jit with our default options."""
    if fn is None:
        return functools.partial(compiled, donate=donate)
    return jax.jit(fn, donate_argnums=donate)
