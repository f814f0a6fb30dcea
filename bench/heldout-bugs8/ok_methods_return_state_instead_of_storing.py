# ok: a jitted method with a static `self` returns its result and the caller keeps it; the
# object is only written outside the traced call; an equinox module returns a new module.
from functools import partial

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np


class Box:
    def __init__(self):
        self.cache = None

    @partial(jax.jit, static_argnums=0)
    def apply_jit(self, arr):
        return arr * 2

    def apply(self, arr):
        out = self.apply_jit(arr)
        self.cache = out
        return out


class Counter(eqx.Module):
    total: jax.Array

    def add(self, x):
        return Counter(self.total + jnp.sum(x))


box = Box()
print(np.array(box.apply(jnp.array([1.0, 2.0, 3.0]))), np.array(box.cache))
counter = eqx.filter_jit(Counter.add)(Counter(jnp.zeros(())), jnp.ones(3))
print(counter.total)
