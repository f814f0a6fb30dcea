# Source: https://github.com/jax-ml/jax/issues/7969 ("Can not jit-compile piecewise linear
# function")
# idnm wrote the middle interval of jnp.piecewise as 0<x<1. Python evaluates a chained
# comparison as (0 < x) and (x < 1): the `and` needs a Python bool, which a tracer cannot give
# (TracerBoolConversionError under jit). With one inequality it works; (0 < x) & (x < 1)
# is the fix.
# Verbatim (try/except and the fixed version added).
import jax


def f(x):
    return jax.numpy.piecewise(x, [x < 0, 0 < x < 1], [-x, x])  # expect: JAX702


f_jit = jax.jit(f)

print(f(0.5))  # 0.5
try:
    f_jit(0.5)  # Error
except jax.errors.TracerBoolConversionError as err:
    print(type(err).__name__)
print(jax.jit(lambda x: jax.numpy.piecewise(x, [x < 0, (0 < x) & (x < 1)], [-x, x]))(0.5))
