# ok: every `.at[]` update is assigned and returned (the fix of the discarded update), in a
# jitted function and in a scanned simulation step.
import jax
import jax.numpy as jnp


@jax.jit
def f(a, idx, b):
    a = a.at[idx].set(b)
    return a


def step(state, force):
    state = state.at[0].add(force)
    state = state.at[1].set(state[1] + 0.1 * state[0])
    return state, state[1]


a = jnp.ones((3, 3))
print(f(a, ((1, 1, 2, 2), (1, 2, 1, 2)), -1))
final, trajectory = jax.lax.scan(step, jnp.zeros(2), jnp.ones(4))
print(final, trajectory)
