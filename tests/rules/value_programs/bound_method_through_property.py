# runtime: check: assert float(cooled) == float(warm) == 2.0  # stale: should be 1.0
# clean runtime: check: assert float(warm) == 2.0 and float(cooled) == 4.0
from jax import jit


class Annealer:
    def __init__(self, temperature):
        self._temperature = temperature
        self.forward = jit(self._forward)  # expect: JAX402

    @property
    def temperature(self):
        return self._temperature

    def cool(self):  # clean:
        self._temperature = self._temperature / 2  # clean:

    def _forward(self, logits):
        return logits / self.temperature


annealer = Annealer(0.5)
warm = annealer.forward(1.0)
annealer.cool()  # clean: annealer = Annealer(0.25)
cooled = annealer.forward(1.0)
