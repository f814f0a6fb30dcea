import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def standardise(x):
    mu = jnp.mean(x)
    z = (x - mu) / jnp.std(x)
    return np.exp(z) / jnp.sum(jnp.exp(z))  # expect: JAX703


print(standardise(jnp.arange(4.0)))
