# runtime: jax.errors.TracerBoolConversionError
import jax
import jax.numpy as jnp
from flax import struct


@struct.dataclass
class State:
    pos: jax.Array
    done: jax.Array


class GridWorld:
    def __init__(self, size=4):
        self.size = size

    def reset(self):
        return State(jnp.zeros(2), jnp.array(False))

    def step(self, state, action):
        pos = state.pos + action
        if state.done:  # expect: JAX701  # clean: pos = jnp.where(state.done, state.pos, pos)
            pos = state.pos  # clean:
        return State(pos, pos.sum() > self.size)


env = GridWorld()
step = jax.jit(env.step)
state = step(env.reset(), jnp.ones(2))
