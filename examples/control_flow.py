"""Python control flow on traced values (JAX701-JAX703)."""

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def relu_or_leaky(x, alpha):
    if alpha > 0:  # a tracer has no truth value
        return jnp.where(x > 0, x, alpha * x)
    return jnp.maximum(x, 0.0)


@jax.jit
def in_unit_interval(x):
    return x >= 0 and x <= 1  # `and` converts the comparison to bool


@jax.jit
def to_host(x):
    total = float(x.sum())  # concretizes a tracer
    return np.asarray(x) * total  # NumPy cannot take a tracer


@partial(jax.jit, static_argnames=("n",))
def repeat_static(x, n):
    for _ in range(n):  # fine: n is static
        x = x * 2
    return x
