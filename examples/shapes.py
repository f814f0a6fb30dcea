"""Shapes that depend on values (JAX801-JAX803)."""

import jax
import jax.numpy as jnp


@jax.jit
def nansum(x):
    mask = ~jnp.isnan(x)
    return x[mask].sum()  # boolean indexing: the shape depends on the mask


@jax.jit
def positive_indices(x):
    return jnp.nonzero(x > 0)  # the output size depends on values


@jax.jit
def ramp(n):
    return jnp.arange(n)  # a shape from a traced value
