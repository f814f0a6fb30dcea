# runtime: jax.errors.TracerBoolConversionError
import jax.numpy as jnp
from jax.experimental.pjit import pjit


def step(x):
    if x.sum() > 0:  # expect: JAX701  # clean: x = jnp.where(x.sum() > 0, -x, x)
        x = -x  # clean:
    return x


out = pjit(step)(jnp.ones(3))
