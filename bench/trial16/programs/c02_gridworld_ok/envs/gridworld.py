from typing import NamedTuple

import jax
import jax.numpy as jnp
from jax import lax


class EnvState(NamedTuple):
    pos: jax.Array
    t: jax.Array


class GridWorld:
    MOVES = jnp.array([[0, 1], [0, -1], [1, 0], [-1, 0]])

    def __init__(self, size=5, max_steps=20):
        self.size = size
        self.max_steps = max_steps
        self.goal = jnp.array([size - 1, size - 1])

    def reset(self, key):
        return EnvState(jax.random.randint(key, (2,), 0, self.size), jnp.array(0))

    def step(self, state, action):
        pos = jnp.clip(state.pos + self.MOVES[action], 0, self.size - 1)
        at_goal = jnp.all(pos == self.goal)
        reward = jnp.where(at_goal, 1.0, -0.01)
        t = state.t + 1
        done = at_goal | (t >= self.max_steps)
        next_state = lax.cond(
            done,
            lambda: EnvState(jnp.zeros_like(pos), jnp.zeros_like(t)),
            lambda: EnvState(pos, t),
        )
        if self.size > 10:  # static config: fine under jit
            reward = reward / self.size
        return next_state, reward, done
