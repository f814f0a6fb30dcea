# runtime: ok
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
def first_signal(obs: Obs):
    return obs.signal[obs.valid]


order = Obs(jnp.array([1.0, -1.0, 3.0]), jnp.array([2, 0]))  # here an index array
m = first_signal(order)
assert m.tolist() == [3.0, 1.0]
