# ok: the term's variant is chosen by a Python float known before tracing (a static argument);
# the traced amplitude only enters arithmetic and jnp.where.
from functools import partial

import jax
import jax.numpy as jnp


class SHOTerm:
    def __init__(self, *, S0, w0, Q):
        self.S0, self.w0, self.Q = S0, w0, Q

    def psd(self, omega):
        denom = (omega**2 - self.w0**2) ** 2 + omega**2 * self.w0**2 / self.Q**2
        return self.S0 * self.w0**4 / denom


@partial(jax.jit, static_argnames=("Q",))
def log_likelihood(log_S0, omega, power, Q):
    scale = 2.0 if Q < 0.5 else 1.0
    term = SHOTerm(S0=scale * jnp.exp(log_S0), w0=1.0, Q=Q)
    resid = jnp.where(power > 0, term.psd(omega) - power, 0.0)
    return -jnp.sum(resid**2)


print(log_likelihood(0.0, jnp.linspace(0.1, 3.0, 8), jnp.ones(8), Q=2.0))
