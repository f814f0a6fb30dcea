# Source: https://openillumi.com/en/en-jax-jit-static-argnums-array-fix ("JAX `static_argnums`
# Array Fix"; a Stack Overflow question retold)
# The user fitted r by least squares and marked the training data x and y as static
# (`static_argnums=(1, 2)`) so that they would be "frozen" in the compiled loss; the call failed:
# "ValueError: Non-hashable static arguments are not supported ... Static argument (index 1) of
# type <class 'numpy.ndarray'> for function loss is non-hashable."
# Reconstructed from the article's description (names x, y, r, loss as there).
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np


@partial(jax.jit, static_argnums=(1, 2))
def loss(r, x, y):
    return jnp.mean((y - r * x) ** 2)


x = np.linspace(0.0, 1.0, 50)
y = 3.0 * x
try:
    print(loss(1.0, np.array([0.0, 0.5, 1.0]), y[:3]))  # expect: JAX1002
except ValueError as err:
    print("ValueError:", str(err)[:50])
print(jax.jit(loss.__wrapped__)(1.0, x, y))
