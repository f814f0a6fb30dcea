# Data augmentation with np.random inside the jitted step.
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def augment(x):
    noise = np.random.normal(size=x.shape)  # expect: JAX601
    return x + 0.1 * noise


x = jnp.zeros(3)
print(augment(x), augment(x))
