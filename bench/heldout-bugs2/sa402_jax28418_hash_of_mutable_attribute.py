# Source: https://github.com/jax-ml/jax/issues/28418 ("The output of a jitted function is
# random when `__hash__` is defined for a static python object")
# A method jitted with static self; the class hashes on self.a, which is reassigned after
# construction. Without __hash__ the second call returns the stale 2; with it the result
# depends on cache lookups (sometimes 2, sometimes 3).
# Verbatim from the issue (the first snippet).
import jax
from functools import partial

class MyClass:
    def __init__(self):
        self.a = 1
    @partial(jax.jit, static_argnums=0)  # expect: JAX402
    def f(self):
        print('tracing')
        return self.a + 1
    def __hash__(self):
        return hash(self.a)

obj = MyClass()
print(obj.f())
obj.a = 2
print(obj.f())
