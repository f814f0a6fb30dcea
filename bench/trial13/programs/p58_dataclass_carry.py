# A plain dataclass as the carry of while_loop: not a pytree (TypeError; no catalogue rule covers it).
import dataclasses

import jax
import jax.numpy as jnp


@dataclasses.dataclass
class Opt:
    x: jax.Array
    step: int


def cond(s):
    return s.step < 10


def body(s):
    return Opt(s.x - 0.1 * 2 * s.x, s.step + 1)


out = jax.lax.while_loop(cond, body, Opt(jnp.array(3.0), 0))
print(out.x)
