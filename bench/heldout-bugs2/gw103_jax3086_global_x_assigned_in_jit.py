# Source: https://github.com/jax-ml/jax/issues/3086 ("Please consider facilitating
# debugging leaked tracers")
# hawkinsp's example: a jitted function stores its argument in a module-level variable;
# with jax_check_tracer_leaks the leak is reported, without it the global silently holds
# a tracer and a later use raises UnexpectedTracerError.
# Verbatim (the flag is left off so the script shows what a user sees without it).
import jax

x = None


@jax.jit
def f(y):
    global x
    x = y  # expect: JAX103
    return y + 2


print(f(7))
print("global x is now:", type(x).__name__)
try:
    print(x + 1)
except Exception as e:
    print(type(e).__name__)
