# runtime: ok
import jax
import jax.numpy as jnp


class Scaler:
    def __init__(self, factor):
        self.factor = factor
        self.apply = jax.jit(self._apply)

    def _apply(self, x):
        return x * self.factor


s = Scaler(2.0)
first = s.apply(jnp.ones(2))
s = Scaler(10.0)
second = s.apply(jnp.ones(2))
assert float(second[0]) == 10.0
