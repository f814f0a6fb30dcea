# runtime: jax.errors.TracerBoolConversionError
import jax.numpy as jnp
from flax import nnx


@nnx.jit  # clean: @nnx.jit(static_argnames="limit")
def clip(x, limit):
    if limit > 0:  # expect: JAX701
        x = jnp.clip(x, -limit, limit)
    return x


out = clip(jnp.ones(3), 1.0)
