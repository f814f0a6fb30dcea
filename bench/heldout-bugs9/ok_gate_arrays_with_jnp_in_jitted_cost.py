# ok: the rotation gate builds its matrix with jax.numpy, so the jitted cost traces; NumPy only
# formats the result on the host.
import jax.numpy as jnp
import numpy as np
from jax import jit


class Rx:
    def __init__(self, phase):
        self.phase = phase

    @property
    def array(self):
        half_theta = jnp.pi * self.phase
        cos, sin = jnp.cos(half_theta), jnp.sin(half_theta)
        return jnp.array([[cos, -1j * sin], [-1j * sin, cos]])


def get_cost(unshaped_params):
    amplitudes = jnp.stack([Rx(theta).array[0, 0] for theta in unshaped_params])
    return jnp.sum(jnp.abs(amplitudes) ** 2)


cost = jit(get_cost)(jnp.array([0.1, 0.25, 0.4]))
print("Cost:", np.round(np.asarray(cost), 3))
