# Source: https://github.com/f0uriest/interpax/issues/96 ("CubicSpline() is not jittable")
# terhorst: `jit(CubicSpline)(np.array([0, 1, 2]), np.array([0, 1, 4]))` fails in
# prepare_input at `not jnp.all(jnp.isfinite(x))` with TracerBoolConversionError; the input
# checks run at construction, which jit now traces. f0uriest: pass check=False as static.
# Adapted (prepare_input's checks and errorif as the traceback and reply show them; the
# spline is reduced to linear pieces, an eqx.Module as in interpax).
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np


def errorif(cond, err=ValueError, msg=""):
    if cond:
        raise err(msg)


def prepare_input(x, y, check=True):
    x = jnp.asarray(x, dtype=float)
    y = jnp.asarray(y, dtype=float)
    if check:
        errorif(
            not jnp.all(jnp.isfinite(x)),  # expect: JAX702
            ValueError,
            "`x` must contain only finite values.",
        )
        errorif(x.ndim != 1, ValueError, "`x` must be 1-dimensional.")
    return x, y


class CubicSpline(eqx.Module):
    x: jax.Array
    c: jax.Array

    def __init__(self, x, y, check=True):
        x, y = prepare_input(x, y, check)
        self.x = x
        self.c = jnp.diff(y) / jnp.diff(x)


print(CubicSpline(np.array([0, 1, 2]), np.array([0, 1, 4])).c)
try:
    jax.jit(CubicSpline)(np.array([0, 1, 2]), np.array([0, 1, 4]))
except jax.errors.TracerBoolConversionError as err:
    print(type(err).__name__)
print(jax.jit(CubicSpline, static_argnames=["check"])(np.array([0, 1, 2]), np.array([0, 1, 4]), check=False).c)
