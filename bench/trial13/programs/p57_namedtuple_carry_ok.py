# NamedTuple state carried through fori_loop; correct.
from typing import NamedTuple

import jax
import jax.numpy as jnp


class State(NamedTuple):
    x: jax.Array
    v: jax.Array
    t: jax.Array


def integrate(s: State, dt: float = 0.01) -> State:
    def body(i, s):
        a = -s.x
        v = s.v + dt * a
        return State(s.x + dt * v, v, s.t + dt)

    return jax.lax.fori_loop(0, 100, body, s)


s = jax.jit(integrate)(State(jnp.array(1.0), jnp.array(0.0), jnp.array(0.0)))
print(s.x, s.t)
