# runtime: jax.errors.NonConcreteBooleanIndexError
# clean runtime: check: assert abs(float(m) - 5.0 / 3) < 1e-6
from dataclasses import dataclass

import jax
import jax.numpy as jnp


@jax.tree_util.register_dataclass
@dataclass
class Batch:
    x: jax.Array
    valid: jax.Array


@jax.jit
def mean_valid(b: Batch):
    return b.x[b.valid].mean()  # expect: JAX801  # clean: return jnp.where(b.valid, b.x, 0.0).sum() / b.valid.sum()


m = mean_valid(Batch(jnp.arange(4.0), jnp.array([True, False, True, True])))
