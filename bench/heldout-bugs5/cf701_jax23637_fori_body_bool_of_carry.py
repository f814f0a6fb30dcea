# Source: https://github.com/jax-ml/jax/issues/23637 ("when a tracer error happens in for_loop,
# should point to the user's body function")
# The same mistake in a fori_loop body: the loop value is a tracer, bool() of it raises
# TracerBoolConversionError (and at the time the message did not name the body function).
# Verbatim (print of the error added).
import jax


def body(_, c):
    return bool(c)  # expect: JAX701


try:
    jax.lax.fori_loop(0, 5, body, 3.0)
except jax.errors.TracerBoolConversionError as err:
    print(type(err).__name__)
