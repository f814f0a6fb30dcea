# runtime: jax.errors.TracerBoolConversionError
import jax.numpy as jnp
from flax import nnx


def scaled(x, factor):
    if factor > 1:  # expect: JAX701  # clean: x = jnp.where(factor > 1, x * factor, x)
        x = x * factor  # clean:
    return x


out = nnx.remat(scaled)(jnp.ones(3), 2.0)
