# runtime: jax.errors.NonConcreteBooleanIndexError
# clean runtime: check: assert float(m) == 2.0
from typing import NamedTuple

import jax
import jax.numpy as jnp


class Obs(NamedTuple):
    signal: jax.Array
    valid: jax.Array


def make_obs(raw):
    valid = raw > 0
    return Obs(raw, valid)


@jax.jit
def mean_signal(obs: Obs):
    return jnp.mean(obs.signal[obs.valid])  # expect: JAX801


m = mean_signal(make_obs(jnp.array([1.0, -1.0, 3.0])))  # clean: m = mean_signal(Obs(jnp.array([1.0, -1.0, 3.0]), jnp.array([2, 0])))
