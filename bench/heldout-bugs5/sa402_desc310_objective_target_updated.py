# Source: https://github.com/PlasmaControl/DESC/pull/310 ("Add jit method to objectives")
# f0uriest: because JAX compiles self as a static argument of jitted methods, updating the
# attributes of an objective (target, weight, ...) is not seen by the jitted compute; the PR
# re-jits on demand. The stale result is the bug.
# Reconstructed from the PR description (a minimal objective class; names from DESC).
from functools import partial

import jax
import jax.numpy as jnp


class AspectRatio:
    def __init__(self, target=5.0, weight=1.0):
        self.target = target
        self.weight = weight

    @partial(jax.jit, static_argnums=(0,))  # expect: JAX402
    def compute(self, R_lmn):
        aspect = jnp.sum(R_lmn**2)
        return self.weight * (aspect - self.target)


obj = AspectRatio(target=5.0)
R_lmn = jnp.array([1.0, 2.0])
print(obj.compute(R_lmn))  # 0.0
obj.target = 3.0
print(obj.compute(R_lmn), "expected", 1.0 * (5.0 - 3.0))  # still 0.0: stale target
