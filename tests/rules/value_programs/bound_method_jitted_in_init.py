# runtime: check: assert float(second[0]) == 2.0  # stale: 10.0 was set
import jax
import jax.numpy as jnp


class Scaler:
    def __init__(self, factor):
        self.factor = factor
        self.apply = jax.jit(self._apply)  # expect: JAX402

    def _apply(self, x):
        return x * self.factor


s = Scaler(2.0)
first = s.apply(jnp.ones(2))
s.factor = 10.0
second = s.apply(jnp.ones(2))
