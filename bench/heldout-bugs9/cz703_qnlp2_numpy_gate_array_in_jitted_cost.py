# Source: https://github.com/Quantinuum/qnlp_lorenz_etal_2021_resources/issues/2 ("jax problems
# rp_task_simulation", nlpirate, 2021-11-17; the same report was posted as
# Quantinuum/lambeq#6). `get_cost_jit = jit(get_cost)` evaluates a circuit whose rotation gates
# build their matrices with NumPy from the traced parameters (discopy's `Rx.array`: `half_theta
# = np.pi * self.phase`, then `np.cos`/`np.sin`): TracerArrayConversionError "while tracing the
# function get_cost ... depends on the value of the argument 'unshaped_params'".
# Reconstructed (the report's function names and traceback; the gate and the cost are small
# stand-ins for discopy's).
import jax
import jax.numpy as jnp
import numpy as np
from jax import jit


class Rx:
    def __init__(self, phase):
        self.phase = phase

    @property
    def array(self):
        half_theta = np.pi * self.phase
        cos, sin = np.cos(half_theta), np.sin(half_theta)  # expect: JAX703
        return np.array([[cos, -1j * sin], [-1j * sin, cos]])


def get_cost(unshaped_params):
    amplitudes = [Rx(theta).array[0, 0] for theta in unshaped_params]
    return jnp.sum(jnp.abs(jnp.asarray(amplitudes)) ** 2)


get_cost_jit = jit(get_cost)
rand_unshaped_pars = jnp.array([0.1, 0.25, 0.4])
print("Cost (eager):", get_cost(rand_unshaped_pars))
try:
    print("Cost: ", get_cost_jit(rand_unshaped_pars))
except jax.errors.TracerArrayConversionError as err:
    print(type(err).__name__)
