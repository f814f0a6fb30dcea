# Source: https://github.com/jax-ml/jax/issues/9023 ("Function in class not recompiled after
# updating wrapper")
# fsahli jitted a method with self static and later replaced self.fn through assign_fn; the
# class hashes by identity, so the cached trace keeps calling the old lambda: t.wrapper(1)
# still prints 2 after fn became x + 2 (jakevdp: the hash of self did not change).
# Verbatim (prints kept).
from functools import partial

from jax import jit


class test:
    def __init__(self) -> None:
        pass

    @partial(jit, static_argnums=(0,))  # expect: JAX402
    def wrapper(self, x):
        return self.fn(x)

    def assign_fn(self, fn):
        self.fn = fn


t = test()

fn = lambda x: x + 1
t.assign_fn(fn)
print(t.wrapper(1))  # prints 2, as expect

fn = lambda x: x + 2
t.assign_fn(fn)
print(t.wrapper(1))  # stills prints 2, although it should print 3
print(t.fn(1))  # prints 3
print(t.wrapper(1))  # stills prints 2
