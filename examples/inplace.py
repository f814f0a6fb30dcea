"""In-place updates: NumPy habits that JAX arrays reject (JAX201-JAX203)."""

import jax
import jax.numpy as jnp
import numpy as np


def normalize_first_row(matrix: jax.Array) -> jax.Array:
    matrix[0, :] = matrix[0, :] / matrix[0, :].sum()
    return matrix


@jax.jit
def sgd_step(weights, grads, lr=0.1):
    weights[0] -= lr * grads[0]
    return weights


def clamp_bias(bias: jax.Array) -> jax.Array:
    bias.at[0].set(jnp.maximum(bias[0], 0.0))  # the update is thrown away
    return bias


def numpy_is_fine(n: int) -> np.ndarray:
    buffer = np.zeros(n)
    buffer[0] = 1.0
    return buffer
