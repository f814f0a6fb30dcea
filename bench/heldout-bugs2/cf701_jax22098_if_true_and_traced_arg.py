# Source: https://github.com/jax-ml/jax/pull/22098 ("remove double dots from an error
# message")
# `if True and qiaoqiao:` in a jitted function: `True and q` evaluates to the traced q,
# and the `if` needs its truth value: TracerBoolConversionError.
# Verbatim from the PR description; try/except added to print the error.
import jax


@jax.jit
def f(qiaoqiao):
    if True and qiaoqiao:  # expect: JAX701
        return 1
    return 0


try:
    print(f(True))
except Exception as e:
    print(type(e).__name__)
