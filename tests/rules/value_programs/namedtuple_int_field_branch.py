# runtime: jax.errors.TracerBoolConversionError
# clean runtime: check: assert float(out.sum()) == 3.0
from typing import NamedTuple

import jax
import jax.numpy as jnp


class State(NamedTuple):
    params: jax.Array
    step: int  # a Python int, yet through jax.jit a traced leaf like any other


@jax.jit
def train_step(state, x):
    if state.step > 10:  # expect: JAX701  # clean: x = jnp.where(state.step > 10, x * 0.1, x)
        x = x * 0.1  # clean:
    return x * state.params


out = train_step(State(jnp.ones(3), 0), jnp.ones(3))
