# Source: https://github.com/jax-ml/jax/issues/3603 ("Issue with JIT when compiling scan function
# with given length")
# jit of a function whose argument is the scan `length`: the length is traced, and today
# JAX says "The `length` argument to `scan` expects a concrete `int` value".
# Verbatim (the minimal example; the try/except is the evidence).
import jax


def do_stuff(length):
    def f(carry, x):
        return carry, [None]

    jax.lax.scan(f, [1], xs=None, length=length)  # expect: JAX803


try:
    jax.jit(do_stuff)(10)
    print("no error")
except Exception as err:
    print(type(err).__name__, str(err).splitlines()[0])
