# Finding active indices inside a jitted function.
import jax
import jax.numpy as jnp


@jax.jit
def active(x):
    idx = jnp.nonzero(x > 0.5)[0]  # expect: JAX802
    return idx


print(active(jnp.array([0.1, 0.9, 0.7])))
