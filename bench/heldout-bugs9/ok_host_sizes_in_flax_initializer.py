# ok: the Hadamard initializer computes its loop count on the host (math.log2 of the static size,
# Python range), so the module initialises under jax.jit.
import math

import flax.linen as nn
import jax
import jax.numpy as jnp
from jax import random


def hadamard(key, shape, dtype=jnp.float32):
    lg2 = int(math.log2(shape[0]))
    H = jnp.ones((1, 1), dtype=dtype)
    for _ in range(lg2):
        H = jnp.vstack([jnp.hstack([H, H]), jnp.hstack([H, -H])])
    return 2 ** (-lg2 / 2) * H


class HadamardTransform(nn.Module):
    n_hadamard: int

    @nn.compact
    def __call__(self, X):
        kernel = self.param("kernel", hadamard, (self.n_hadamard,))
        return jnp.dot(X, kernel)


key = random.PRNGKey(0)
X = random.normal(key, (1, 8))
params = jax.jit(HadamardTransform(8).init)(key, X)
print(params["params"]["kernel"].shape)
