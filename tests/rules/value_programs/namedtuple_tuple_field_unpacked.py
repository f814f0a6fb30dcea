# runtime: TypeError
# clean runtime: check: assert float(out[1].sum()) == 2.0
from typing import NamedTuple

import jax
import jax.numpy as jnp


class TrainState(NamedTuple):
    params: tuple
    step: jax.Array


@jax.jit
def train_step(state: TrainState, x):
    w, b = state.params
    b[0] = 0.0  # expect: JAX201  # clean: b = b.at[0].set(0.0)
    return w * x, b


out = train_step(TrainState((jnp.ones(3), jnp.ones(3)), jnp.array(0)), jnp.ones(3))
