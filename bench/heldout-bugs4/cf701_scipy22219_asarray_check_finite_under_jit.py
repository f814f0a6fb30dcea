# Source: https://github.com/scipy/scipy/pull/22219 ("ENH: `_lib`: deobfuscate `jax.jit` crash
# in `_asarray`", 2024)
# crusaderky: `jax.jit(f)(a)` with f calling scipy's `_asarray(a, check_finite=True)` failed
# with a misleading "ValueError: array must not contain infs or NaNs"; after the PR it is the
# honest TracerBoolConversionError: the finiteness check is a Python `if` on a traced
# `all(isfinite(array))` (scipy.cluster.vq.kmeans hits it under jit).
# Adapted: scipy's array-API helper is reduced to the branch the PR touches (xp is jax.numpy).
import jax
import jax.numpy as xp


def _asarray(array, dtype=None, check_finite=False, xp=xp):
    array = xp.asarray(array, dtype=dtype)
    if check_finite:
        if not xp.all(xp.isfinite(array)):  # expect: JAX701
            raise ValueError("array must not contain infs or NaNs")
    return array


a = xp.asarray([0])


def f(a):
    return _asarray(a, check_finite=True)


try:
    jax.jit(f)(a)
except jax.errors.TracerBoolConversionError as err:
    print(type(err).__name__)
