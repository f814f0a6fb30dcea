# Source: https://github.com/exoplanet-dev/celerite2/issues/78 ("SHOTerm not working in numpyro
# model", tagordon). A numpyro model builds `terms.SHOTerm(...)` from sampled parameters; NUTS
# traces the model and `mcmc.run` fails with ConcretizationTypeError. celerite2's jax `SHOTerm`
# is a function that builds both variants and picks one with `if over.Q < 0.5:`, a Python
# branch on the traced quality factor.
# Reconstructed (celerite2's SHOTerm selection, with small term classes; the model's likelihood
# is jitted directly instead of running NUTS; celerite2 and numpyro are not installed).
import jax
import jax.numpy as jnp


class OverdampedSHOTerm:
    def __init__(self, *, S0, w0, Q):
        self.S0, self.w0, self.Q = S0, w0, Q

    def psd(self, omega):
        return (
            self.S0
            * self.w0**4
            / ((omega**2 - self.w0**2) ** 2 + omega**2 * self.w0**2 / self.Q**2)
        )


class UnderdampedSHOTerm(OverdampedSHOTerm):
    pass


def SHOTerm(*args, **kwargs):
    over = OverdampedSHOTerm(*args, **kwargs)
    under = UnderdampedSHOTerm(*args, **kwargs)
    if over.Q < 0.5:  # expect: JAX701
        return over
    return under


def log_likelihood(log_S0, log_w0, log_Q, omega, power):
    term = SHOTerm(S0=jnp.exp(log_S0), w0=jnp.exp(log_w0), Q=jnp.exp(log_Q))
    return -jnp.sum((term.psd(omega) - power) ** 2)


omega = jnp.linspace(0.1, 3.0, 8)
power = jnp.ones(8)
print(log_likelihood(0.0, 0.0, 1.0, omega, power))
try:
    jax.jit(log_likelihood)(0.0, 0.0, 1.0, omega, power)
except jax.errors.ConcretizationTypeError as err:
    print(type(err).__name__)
