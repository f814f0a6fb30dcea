# Source: https://github.com/waymo-research/waymax/issues/14 ("Is this running speed
# normal?")
# A maintainer suggested jitting the benchmark loop; a user running the snippet got
# TracerIntegerConversionError at `for _ in range(state.remaining_timesteps):`, because
# remaining_timesteps is a traced field of the state pytree.
# Adapted: waymax's SimulatorState and update_state_by_log replaced by a small
# flax.struct stand-in with the same field names; the jitted benchmark is verbatim.
import jax
import jax.numpy as jnp
from flax import struct


@struct.dataclass
class SimulatorState:
    timestep: jax.Array
    remaining_timesteps: jax.Array
    log_xy: jax.Array


def update_state_by_log(state, num_steps=1):
    return state.replace(
        timestep=state.timestep + num_steps,
        remaining_timesteps=state.remaining_timesteps - num_steps,
    )


@jax.jit
def benchmark(state):
    for _ in range(state.remaining_timesteps):  # expect: JAX703
        state = update_state_by_log(state, num_steps=1)
    return state


scenario = SimulatorState(jnp.array(0), jnp.array(5), jnp.zeros((5, 2)))
try:
    state = benchmark(scenario)
    print("remaining_timesteps: ", state.remaining_timesteps)
except Exception as e:
    print(type(e).__name__)
