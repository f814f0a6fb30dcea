# runtime: jax.errors.TracerBoolConversionError
import jax.numpy as jnp
from flax import nnx


def body(total, x, limit):
    if limit > 0:  # expect: JAX701  # clean: x = jnp.where(limit > 0, jnp.minimum(x, limit), x)
        x = jnp.minimum(x, limit)  # clean:
    return total + x, x


scan = nnx.scan(body, in_axes=(nnx.Carry, 0, None))
total, xs = scan(jnp.zeros(3), jnp.ones((2, 3)), 1.0)
