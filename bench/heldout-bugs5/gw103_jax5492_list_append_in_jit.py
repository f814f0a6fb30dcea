# Source: https://github.com/jax-ml/jax/pull/5492 ("revive the leak checker, as a debug mode")
# The PR's motivating example: a jitted function appends its argument to a module-level list.
# The list keeps a tracer after tracing ends; with the leak checker on, the call raises; without
# it, using the stored value later raises UnexpectedTracerError.
# Verbatim (jax.core.checking_leaks replaced by today's jax.checking_leaks; evidence added).
import jax
import jax.numpy as jnp
from jax import jit

lst = []


@jit
def f(x):
    lst.append(x)  # expect: JAX103
    return x


f(3.0)
print(type(lst[0]).__name__)
try:
    print(jnp.sin(lst[0]))
except jax.errors.UnexpectedTracerError as err:
    print(type(err).__name__)
