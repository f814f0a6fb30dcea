# Source: https://github.com/jax-ml/jax/issues/1406 ("'JaxprTracer' object cannot be
# interpreted as an integer")
# "The following works fine without jit ... But as it is, I get the following error":
# `for _ in range(num)` on a jitted argument; today TracerIntegerConversionError.
# Verbatim; try/except added.
from jax import jit


def foo(num):
    for _ in range(num):  # expect: JAX703
        pass


foo(0)
try:
    jit(foo)(0)
except Exception as e:
    print(type(e).__name__)
