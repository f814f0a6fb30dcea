"""Jitted methods and PyTree classes (JAX401, JAX402, JAX403)."""

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


@jax.tree_util.register_pytree_node_class
class Truncate:
    def __init__(self, weights, keep: int):
        self.weights = weights
        self.keep = keep

    def __call__(self, x):
        return x[: self.keep] @ self.weights[: self.keep]

    def tree_flatten(self):  # `keep` becomes a tracer under jit: the slice fails
        return (self.weights, self.keep), None

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        return cls(*children)


scaler = Scaler(jnp.float32(2.0), True)
