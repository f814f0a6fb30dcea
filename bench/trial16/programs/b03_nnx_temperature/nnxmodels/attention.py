import math

import jax
import jax.numpy as jnp
from flax import nnx


class ScaledAttention(nnx.Module):
    def __init__(self, dim: int, *, rngs: nnx.Rngs):
        self.q = nnx.Linear(dim, dim, rngs=rngs)
        self.k = nnx.Linear(dim, dim, rngs=rngs)
        self.v = nnx.Linear(dim, dim, rngs=rngs)
        self.log_temp = nnx.Param(jnp.zeros(()))

    def __call__(self, x):
        q, k, v = self.q(x), self.k(x), self.v(x)
        temp = float(jnp.exp(self.log_temp.value))  # expect: JAX703
        scores = q @ k.swapaxes(-1, -2) / (math.sqrt(x.shape[-1]) * temp)
        return jax.nn.softmax(scores, axis=-1) @ v
