# Source: https://github.com/jax-ml/jax/issues/1461 ("confusing behaviour for `and` vs `&`")
# mganahl chains two conditions with `and` in the predicate of `jax.lax.cond` inside a jitted
# function; the flags are traced arguments, so `cond1 and cond2` asks for a Python bool:
# TracerBoolConversionError. With `&` it works.
# Adapted (the report's function, written with the current `lax.cond` signature).
import jax


@jax.jit
def test(cond1, cond2, a, b):
    return jax.lax.cond(cond1 and cond2, lambda x: x[0], lambda x: x[1], (a, b))  # expect: JAX702


@jax.jit
def test_bitwise(cond1, cond2, a, b):
    return jax.lax.cond(cond1 & cond2, lambda x: x[0], lambda x: x[1], (a, b))


print(test_bitwise(True, True, 1, 2))
try:
    print(test(True, True, 1, 2))
except jax.errors.TracerBoolConversionError as err:
    print(type(err).__name__)
