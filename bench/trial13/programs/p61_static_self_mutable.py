# Making self static to get the method to compile, then updating the weights.
from functools import partial

import jax
import jax.numpy as jnp


class Scaler:
    def __init__(self, scale):
        self.scale = scale

    @partial(jax.jit, static_argnums=0)  # expect: JAX402
    def apply(self, x):
        return x * self.scale

    def set_scale(self, s):
        self.scale = s


s = Scaler(2.0)
print(s.apply(jnp.ones(2)))
s.set_scale(10.0)
print(s.apply(jnp.ones(2)))
