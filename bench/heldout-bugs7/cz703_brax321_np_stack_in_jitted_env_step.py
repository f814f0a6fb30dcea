# Source: https://github.com/google/brax/issues/321 ("TracerArrayConversionError when jitting env.step")
# jamesheald's custom environment builds its observation with `np.stack` of the body's
# rotation; `jax.jit(env.step)` raises TracerArrayConversionError ("depends on the values
# of the arguments state.qp.rot and action").
# Reconstructed (a minimal environment class with a pipeline state; the NumPy stack of
# traced state in the observation is the report's).
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np


class State(NamedTuple):
    pos: jax.Array
    rot: jax.Array
    obs: jax.Array


class PointMass:
    dt = 0.05

    def _get_obs(self, pos, rot):
        return np.stack([pos, rot])  # expect: JAX703

    def reset(self):
        pos, rot = jnp.zeros(3), jnp.array([1.0, 0.0, 0.0])
        return State(pos, rot, jnp.asarray(self._get_obs(pos, rot)))

    def step(self, state, action):
        pos = state.pos + self.dt * action
        rot = state.rot / jnp.linalg.norm(state.rot)
        return State(pos, rot, jnp.asarray(self._get_obs(pos, rot)))


env = PointMass()
state = env.reset()
print(env.step(state, jnp.ones(3)).obs.shape)
try:
    print(jax.jit(env.step)(state, jnp.ones(3)).obs.shape)
except jax.errors.TracerArrayConversionError as err:
    print(type(err).__name__)
