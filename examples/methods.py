"""Jitted methods (JAX401, JAX402)."""

from functools import partial

import jax
import jax.numpy as jnp


class Scaler:
    def __init__(self, scale, enabled: bool):
        self.scale = scale
        self.enabled = enabled

    @jax.jit  # self is not a valid JAX type
    def apply(self, x):
        if self.enabled:
            return self.scale * x
        return x


class Counter:
    def __init__(self, step):
        self.step = step

    def set_step(self, step):
        self.step = step

    @partial(jax.jit, static_argnums=0)  # stale results once `step` changes
    def advance(self, x):
        return x + self.step


scaler = Scaler(jnp.float32(2.0), True)
