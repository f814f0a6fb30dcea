"""Recompiling and unhashable static arguments (JAX1001, JAX1002)."""

from functools import partial

import jax
import jax.numpy as jnp


def train(data):
    total = 0.0
    for batch in data:
        step = jax.jit(lambda x: (x**2).sum())  # a new function: compiled every iteration
        total += step(batch)
    return total


@partial(jax.jit, static_argnames=("axes",))
def reduce(x, axes):
    return x.sum(axis=axes)


result = reduce(jnp.ones((2, 3)), axes=[0])  # lists are not hashable
