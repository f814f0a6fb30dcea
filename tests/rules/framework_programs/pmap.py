# runtime: jax.errors.TracerBoolConversionError
import jax
import jax.numpy as jnp


def step(x):
    if x.sum() > 0:  # expect: JAX701  # clean: x = jnp.where(x.sum() > 0, -x, x)
        x = -x  # clean:
    return x


out = jax.pmap(step)(jnp.ones((1, 3)))
