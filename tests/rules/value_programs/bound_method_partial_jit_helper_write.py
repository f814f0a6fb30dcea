# runtime: check: assert float(after) == float(before) == -0.5  # stale: lr became 0.01
# clean runtime: check: assert abs(float(after) + 0.01) < 1e-6
from functools import partial

import jax


class Trainer:
    def __init__(self, lr):
        self.lr = lr

    def build(self):
        return partial(jax.jit, static_argnames="steps")(self._update)  # expect: JAX402

    def _update(self, w, steps):  # clean: def _update(self, w, lr, steps):
        for _ in range(steps):
            w = w - self.lr * 1.0  # clean: w = w - lr * 1.0
        return w


def decay(trainer):
    trainer.lr = trainer.lr / 50


trainer = Trainer(0.5)
update = trainer.build()
before = update(0.0, steps=1)  # clean: before = update(0.0, trainer.lr, steps=1)
decay(trainer)
after = update(0.0, steps=1)  # clean: after = update(0.0, trainer.lr, steps=1)
