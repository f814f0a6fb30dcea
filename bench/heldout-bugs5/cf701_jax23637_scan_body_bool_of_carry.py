# Source: https://github.com/jax-ml/jax/issues/23637 ("when a tracer error happens in for_loop,
# should point to the user's body function")
# The scan body turns its carry into a Python bool; scan traces the body with an abstract
# carry, so bool() fails with TracerBoolConversionError ("depends on the value of the
# argument c"). The report is about the message; the bug in the user code is the bool().
# Verbatim (print of the error and a working lax.cond version added).
import jax


def body(c, _):
    return bool(c), None  # expect: JAX701


try:
    jax.lax.scan(body, 3.0, None, length=1)
except jax.errors.TracerBoolConversionError as err:
    print(type(err).__name__)


def body_ok(c, _):
    return jax.lax.cond(c != 0, lambda: 1.0, lambda: 0.0), None


print(jax.lax.scan(body_ok, 3.0, None, length=1))
