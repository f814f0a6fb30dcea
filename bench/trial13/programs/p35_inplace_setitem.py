# PyTorch-style in-place update of a weight matrix.
import jax.numpy as jnp

W = jnp.zeros((3, 3))
for i in range(3):
    W[i, i] = 1.0  # expect: JAX201
print(W)
