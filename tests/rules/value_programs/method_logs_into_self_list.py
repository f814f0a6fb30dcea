# runtime: check: assert isinstance(logger.history[0], jax.core.Tracer)
# clean runtime: check: assert float(logger.history[0]) == 1.0
import functools

import jax
import jax.numpy as jnp


class Logger:
    def __init__(self):
        self.history = []

    @functools.partial(jax.jit, static_argnums=0)
    def step(self, w, g):
        loss = jnp.sum(w * g)
        self.history.append(loss)  # expect: JAX103  # clean:
        return w - 0.1 * g, loss


logger = Logger()
w, loss = logger.step(jnp.ones(2), jnp.full(2, 0.5))
w = w  # clean: logger.history.append(loss)
