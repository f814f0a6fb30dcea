# Source: https://github.com/jax-ml/jax/issues/2251 ("`lax.scan` ~100x slower than recursion?")
# tbsexton timed a jitted lax.scan simulation: with `_pandemic_scan` jitted once at module level
# a call took ~141 us; with the same `@partial(jit, static_argnums=...)` function defined
# inside `pandemic_scan` (a "local" version) every call took ~272 ms, because each call makes
# a new jitted function and compiles it again. shoyer explained the cache is keyed on the
# function object.
# Adapted: the user's `infect` step and InfectState are reduced to a small stand-in with the
# same signature; x0 and a are small arrays. The local version is the one the report timed.
import functools
import time
from typing import NamedTuple

import jax.numpy as np
from jax import jit, lax


class InfectState(NamedTuple):
    x: np.ndarray
    a: np.ndarray


x0 = np.ones(10) * 0.01
a = np.eye(10) * 0.5


def infect(state, step):
    new_x = state.x + step * (state.a @ state.x) * (1 - state.x)
    return InfectState(new_x, state.a), new_x.sum()


def pandemic_scan(state, step=1, t=0, T=5):

    @functools.partial(jit, static_argnums=(1, 2, 3))  # expect: JAX1001
    def _pandemic_scan(state, step, t, T):
        return lax.scan(infect, InfectState(x0, a), np.full(T, step))

    return _pandemic_scan(state, step, t, T)


for _ in range(2):
    start = time.perf_counter()
    pandemic_scan(InfectState(x0, a), T=5)[1].block_until_ready()
    print(f"call took {time.perf_counter() - start:.4f}s (recompiled each call)")
