# ok: the jitted scan is defined once at module level (static step count) and reused in a loop.
import functools
from typing import NamedTuple

import jax.numpy as np
from jax import jit, lax


class InfectState(NamedTuple):
    x: np.ndarray
    a: np.ndarray


def infect(state, step):
    new_x = state.x + step * (state.a @ state.x) * (1 - state.x)
    return InfectState(new_x, state.a), new_x.sum()


@functools.partial(jit, static_argnums=(1, 2))
def _pandemic_scan(state, step, T):
    return lax.scan(infect, state, np.full(T, step))


def pandemic_scan(state, step=1, T=5):
    return _pandemic_scan(state, step, T)


state = InfectState(np.ones(10) * 0.01, np.eye(10) * 0.5)
for _ in range(3):
    final, totals = pandemic_scan(state, T=5)
print(totals)
