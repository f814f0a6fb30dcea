# runtime: jax.errors.TracerBoolConversionError
# clean runtime: check: assert float(out) == 3.0
import functools

import jax
import jax.numpy as jnp


def compiled(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return jax.jit(fn)(*args, **kwargs)

    return wrapper


@compiled
def clip_positive(x):
    if x < 0:  # expect: JAX701  # clean: return jnp.maximum(x, 0.0)
        return 0.0 * x  # clean:
    return x  # clean:


out = clip_positive(jnp.float32(3.0))
