# OK (no findings expected): Python loops inside jit over static counts (counterparts of
# cz703_jax1406 and cz703_waymax14): a static_argnames count, a shape, a dataclass
# field marked static, and a lax.fori_loop for a traced count.
from functools import partial

import jax
import jax.numpy as jnp
from flax import struct


@struct.dataclass
class SimState:
    timestep: jax.Array
    log_xy: jax.Array
    remaining_timesteps: int = struct.field(pytree_node=False, default=5)


@partial(jax.jit, static_argnames=("num",))
def repeat_add(x, num):
    for _ in range(num):
        x = x + 1
    return x


@jax.jit
def row_sums(m):
    return jnp.stack([m[i].sum() for i in range(m.shape[0])])


@jax.jit
def benchmark(state):
    for _ in range(state.remaining_timesteps):
        state = state.replace(timestep=state.timestep + 1)
    return state


@jax.jit
def count_up(n):
    return jax.lax.fori_loop(0, n, lambda i, acc: acc + i, 0)


print(repeat_add(jnp.zeros(2), num=3), row_sums(jnp.ones((3, 2))))
print(benchmark(SimState(jnp.array(0), jnp.zeros((5, 2)))).timestep, count_up(5))
