# Source: https://github.com/jax-ml/jax/pull/4312 ("improve an escaped tracer error message")
# mattjj's repro "models an error several users started encountering with Flax and Haiku":
# init() splits a module-level key with `global key`; under jit the repeated calls return
# the same number, and the global now holds a leaked tracer; touching it raises
# UnexpectedTracerError.
# Verbatim from the PR description (comments shortened); the last lines show the leak.
from jax import jit
from jax import random

key = random.PRNGKey(0)


def init():
    global key
    key, subkey = random.split(key)  # expect: JAX103
    return random.normal(subkey, ())


print(init())
print(init())

init = jit(init)
print(init())
print(init())  # same value again: the key update is not re-executed

print(type(key).__name__)
try:
    random.normal(key, ())
except Exception as e:  # UnexpectedTracerError
    print(type(e).__name__)
