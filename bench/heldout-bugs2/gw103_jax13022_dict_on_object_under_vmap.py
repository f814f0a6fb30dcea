# Source: https://github.com/jax-ml/jax/pull/13022 ("leak checker: explain why a tracer is
# alive by printing a reference chain")
# The function mapped by vmap stores a closure over its traced argument in a dict held by
# a module-level object; the tracer outlives the transformation.
# Verbatim from the PR description (without jax_check_tracer_leaks); the evidence calls
# the stored lambda after vmap returns.
import jax


class A:
    def __init__(self, dct):
        self.dct = dct


a = A({})


def sketch(x):
    a.dct['hi'] = [lambda: x]  # expect: JAX103
    return x


jax.vmap(sketch)(jax.numpy.arange(3))
leaked = a.dct['hi'][0]()
print("stored value:", type(leaked).__name__)
try:
    print(leaked + 1)
except Exception as e:
    print(type(e).__name__)
