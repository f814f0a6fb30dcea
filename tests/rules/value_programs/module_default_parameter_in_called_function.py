# runtime: jax.errors.TracerBoolConversionError
# clean runtime: check: assert abs(float(f(xp.ones(2))[0]) - 2.718282) < 1e-5
# scipy #22219: the array-API idiom `def helper(..., xp=xp)`; a traced call that leaves `xp`
# alone runs it with `jax.numpy`, so `xp.all(...)` is a traced value in the helper's `if`.
# ruff: noqa: SIM102
import jax
import jax.numpy as xp
import numpy as np


def _asarray(array, check_finite=False, xp=xp):
    array = xp.asarray(array)
    if check_finite:
        if not xp.all(xp.isfinite(array)):  # expect: JAX701
            raise ValueError("array must not contain infs or NaNs")
    return array


def _exp(array, xp=np):
    xp = getattr(array, "__array_namespace__", lambda: np)()  # rebound: not the default
    return xp.exp(array)


@jax.jit
def f(a):
    return _exp(_asarray(a, check_finite=True))  # clean: return _exp(_asarray(a))


print(_asarray(np.ones(2), check_finite=True, xp=np))
f(xp.ones(2))
