# ok: conditions on traced values use `&`, `jnp.logical_and` and `jnp.where`; `and` and chained
# comparisons only combine Python values known at trace time (static arguments, config).
from functools import partial

import jax
import jax.numpy as jnp

BAND = (500.0, 600.0)


@jax.jit
def select(cond1, cond2, a, b):
    return jax.lax.cond(cond1 & cond2, lambda x: x[0], lambda x: x[1], (a, b))


@jax.jit
def in_band(wavelength):
    lo, hi = BAND
    inside = jnp.logical_and(lo < wavelength, wavelength <= hi)
    return jnp.where(inside, 0, 2)


@partial(jax.jit, static_argnames=("verbose", "strict"))
def scaled(x, verbose=False, strict=True):
    if verbose and strict:
        return x * 2.0
    return x if 0 < len(BAND) <= 2 else -x


print(select(True, True, 1, 2), in_band(jnp.array([450.0, 550.0, 650.0])))
print(scaled(jnp.ones(2), verbose=True))
