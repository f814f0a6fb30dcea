from typing import Sequence

import flax.linen as nn
import jax.numpy as jnp


class SparseMLP(nn.Module):
    features: Sequence[int]
    threshold: float = 0.1

    @nn.compact
    def __call__(self, x):
        for f in self.features[:-1]:
            x = nn.relu(nn.Dense(f)(x))
        # keep only the units that fire above threshold
        active = jnp.nonzero(jnp.abs(x).mean(0) > self.threshold)[0]  # expect: JAX802
        x = x[:, active]
        return nn.Dense(self.features[-1])(x)
