# runtime: ok
from jax import jit


class Annealer:
    def __init__(self, temperature):
        self._temperature = temperature
        self.forward = jit(self._forward)

    @property
    def temperature(self):
        return self._temperature

    def _forward(self, logits):
        return logits / self.temperature


annealer = Annealer(0.5)
warm = annealer.forward(1.0)
assert float(warm) == 2.0
