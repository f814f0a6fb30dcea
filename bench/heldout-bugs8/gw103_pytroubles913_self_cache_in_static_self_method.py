# Source: https://pytroubles.com/ru/ampposts/id913-jax-i-jit-tracerarrayconversionerror-i-kak-ispravit
# (a retelling of a Stack Overflow question on JAX jit and object state).
# A method jitted with `static_argnums=0` stores its intermediate result in `self.cache`; the
# returned value converts to NumPy fine, but `np.array(box.cache)` raises
# TracerArrayConversionError: the attribute holds the tracer of the first trace.
# Adapted (the question's code; its trace-time prints dropped, evidence added).
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np


def host_bootstrap():
    return jnp.array([1.0, 2.0, 3.0])


class Box:
    @partial(jax.jit, static_argnums=0)
    def apply_jit(self, arr):
        out = arr * 2
        self.cache = out  # expect: JAX103
        return out


payload = host_bootstrap()
box = Box()
out1 = box.apply_jit(payload)
print(np.array(out1))
try:
    print(np.array(box.cache))
except jax.errors.TracerArrayConversionError as err:
    print(type(err).__name__)
