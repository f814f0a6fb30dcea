# Source: https://github.com/jax-ml/jax/issues/2273 ("`assert np.all(np.isfinite(x))` not working
# under jit")
# clemisch checks an intermediate result for NaNs with `assert np.all(np.isfinite(x))` (np is
# jax.numpy); it works without jit and as a return value under jit, but the assert under jit
# needs a Python bool of a tracer: TracerBoolConversionError.
# Verbatim (the report's repro; the working variants kept, evidence added).
import jax
import jax.numpy as np

a = np.array([1.0, np.nan, 3.0])


@jax.jit
def test_nan_return_jit(x):
    return np.all(np.isfinite(x))


print(test_nan_return_jit(a))


@jax.jit
def test_nan_assert_jit(x):
    assert np.all(np.isfinite(x))  # expect: JAX701


try:
    print(test_nan_assert_jit(a))
except jax.errors.ConcretizationTypeError as err:
    print(type(err).__name__)
