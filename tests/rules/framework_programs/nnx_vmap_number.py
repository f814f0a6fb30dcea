# runtime: jax.errors.TracerBoolConversionError
import jax.numpy as jnp
from flax import nnx


def shift(x, offset, limit):
    if limit > 0:  # the third argument is not mapped: a Python number
        x = x + limit
    if offset.sum() > 0:  # expect: JAX701  # clean: x = jnp.where(offset.sum() > 0, x + offset, x)
        x = x + offset  # clean:
    return x


out = nnx.vmap(shift, in_axes=(0, 0, None))(jnp.ones((2, 3)), jnp.ones((2, 3)), 1.0)
