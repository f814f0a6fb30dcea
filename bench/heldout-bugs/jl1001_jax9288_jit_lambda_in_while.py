# Source: https://github.com/jax-ml/jax/issues/9288 ("unjitted_loop_body is not constantly
# re-compiled in the JIT tutorial")
# The reporter found that jit of the named function is cached, but "if I switch this to a
# lambda function, it is indeed being compiled every iteration" (one trace per loop step).
# Adapted: the reporter's lambda variant (the tutorial's named-function version is excluded).
import jax


def unjitted_loop_body(prev_i):
    print("i am being jitted")
    return prev_i + 1


def g_inner_jitted_poorly(x, n):
    i = 0
    while i < n:
        # Don't do this!
        i = jax.jit(lambda x: unjitted_loop_body(x))(i)  # expect: JAX1001
    return x + i


print(g_inner_jitted_poorly(10, 3))
