# runtime: jax.errors.TracerBoolConversionError
# clean runtime: check: assert float(out) == 4.0
import jax
import jax.numpy as jnp


def scaled(y, scale=None, shift=0.0):
    scale = scale or jnp.ones(())  # expect: JAX702  # clean: scale = jnp.ones(()) if scale is None else scale
    if shift:  # the caller never passes shift: the default stays a Python float
        y = y + shift
    return y * scale


def middle(y, scale, shift=0.0):
    return scaled(y, scale=scale, shift=shift)  # shift: the caller's own untouched default


@jax.jit
def run(y, scale):
    return middle(y, scale)


out = run(2.0, 2.0)
