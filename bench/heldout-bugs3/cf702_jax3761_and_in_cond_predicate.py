# Source: https://github.com/jax-ml/jax/issues/3761 ("logical operators with jit?")
# jax.lax.cond worked with the predicate `x < 0` but failed under jit with `x < 0 and y < 0`
# (and with `not x < 0`): Python's `and` asks for bool() of a tracer.
# Verbatim; the failing call is wrapped to print the error.
import jax
from jax import jit


@jit
def true_fn(x):
    return x - 5000.0


@jit
def false_fn(x):
    return x + 100.0


@jit
def cond_test_1(x, y):
    return jax.lax.cond(x < 0, true_fn, false_fn, x)


@jit
def cond_test_2(x, y):
    return jax.lax.cond(x < 0 and y < 0, true_fn, false_fn, x)  # expect: JAX702


print(cond_test_1(0.3, 0.1))
try:
    print(cond_test_2(0.3, 0.1))
except jax.errors.TracerBoolConversionError as err:
    print(type(err).__name__)
