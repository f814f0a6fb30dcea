# runtime: check: assert float(after) == 1.0  # stale: the step became 5.0
# clean runtime: check: assert float(after) == 5.0
import jax
import jax.numpy as jnp


class Counter:
    def __init__(self, step):
        self.step = step
        self._compiled = None

    def compiled(self):
        if self._compiled is None:
            self._compiled = jax.jit(self.advance)
        return self._compiled

    def advance(self, x):  # clean: def advance(self, x, step):
        return x + self.step  # expect: JAX102  # clean: return x + step

    def set_step(self, step):
        self.step = step


counter = Counter(1.0)
before = counter.compiled()(jnp.zeros(()))  # clean: before = counter.compiled()(jnp.zeros(()), counter.step)
counter.set_step(5.0)
after = counter.compiled()(jnp.zeros(()))  # clean: after = counter.compiled()(jnp.zeros(()), counter.step)
