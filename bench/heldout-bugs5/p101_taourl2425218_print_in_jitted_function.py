# Source: https://taourl.com/read-2425218.html (retelling of a Stack Overflow question:
# "Difference in variable values in jax non-jit runtime and jit transformed runtime")
# The asker printed inside a function and compared it plain and jitted: under jit the print
# runs only while tracing (once, showing a tracer), later calls print nothing. Answer:
# side effects such as print run at trace time only; use jax.debug.print.
# Adapted (the answer's example; `x 2` in the page read as `x * 2`).
import jax


def non_jit_func(x):
    print("Non-JIT print:", x)  # expect: JAX101
    return x * 2


jit_func = jax.jit(non_jit_func)

# Non-JIT execution
print("Non-JIT output:", non_jit_func(5))  # Prints and computes
print("Non-JIT output:", non_jit_func(5))  # Prints again

# JIT execution
print("JIT output:", jit_func(5))  # Prints only once (a tracer)
print("JIT output:", jit_func(5))  # No print, cached result
