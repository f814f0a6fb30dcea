# Source: https://github.com/asantini29/phentax/pull/28 ("fix: guard jnp calls and assertions
# against JIT tracing in initial_processing")
# Calling the IMRPhenomTHM waveform inside `jax.jit` raises ConcretizationTypeError at
# `int(jnp.ceil(T / delta_t))` in `initial_processing`: the duration depends on the masses, which
# are traced. The PR replaces it with `math.ceil` on Python floats.
# Reconstructed (phentax is not installed: the class keeps the report's method names; the
# duration is the leading-order time to merger).
import jax
import jax.numpy as jnp


class IMRPhenomTHM:
    def __init__(self, delta_t=1.0, f_min=20.0):
        self.delta_t = delta_t
        self.f_min = f_min

    def time_to_merger(self, m1, m2):
        mchirp = (m1 * m2) ** 0.6 / (m1 + m2) ** 0.2
        return 2.18 * (1.21 / mchirp) ** (5.0 / 3.0) * (100.0 / self.f_min) ** (8.0 / 3.0)

    def initial_processing(self, m1, m2):
        T = self.time_to_merger(m1, m2)
        n_steps = int(jnp.ceil(T / self.delta_t))  # expect: JAX703
        return T, n_steps

    def compute_polarizations(self, m1, m2):
        T, n_steps = self.initial_processing(m1, m2)
        return T / n_steps


wf = IMRPhenomTHM()
print(wf.compute_polarizations(30.0, 25.0))
try:
    print(jax.jit(wf.compute_polarizations)(30.0, 25.0))
except jax.errors.ConcretizationTypeError as err:
    print(type(err).__name__)
