# runtime: check: assert float(after) == float(before) == -0.5  # stale: lr became 0.01
from functools import partial

import jax


class Trainer:
    def __init__(self, lr):
        self.lr = lr

    def build(self):
        return partial(jax.jit, static_argnames="steps")(self._update)  # expect: JAX402

    def _update(self, w, steps):
        for _ in range(steps):
            w = w - self.lr * 1.0
        return w


def decay(trainer):
    trainer.lr = trainer.lr / 50


trainer = Trainer(0.5)
update = trainer.build()
before = update(0.0, steps=1)
decay(trainer)
after = update(0.0, steps=1)
