# Source: https://github.com/jax-ml/jax/issues/5595 ("JIT for class method")
# `@jit` on a method: "TypeError: Argument '<__main__.A1 object ...>' of type <class
# '__main__.A1'> is not a valid JAX type." (the working variant jitted the bound method in
# __init__).
# Verbatim (second snippet of the report).
from jax import jit


class A1:
    def __init__(self):
        # self.f = jax.jit(self.f)
        pass

    @jit  # expect: JAX401
    def f(self, x):
        return x


a = A1()
try:
    print(a.f(5))
except TypeError as err:
    print("TypeError:", str(err).splitlines()[0])
