# Source: https://github.com/rlouf/mcx/issues/58 ("non-hashable static_argnums are not supported
# in Jax 0.2.6")
# jeremiecoullon reports that mcx's warmup (`inference.warmup.num_steps_adaptation`) defines a
# jitted `run()` inside `longest_batch_before_turn()` that marks array arguments static; since
# JAX 0.2.6 a non-hashable static argument is an error: ValueError "Non-hashable static
# arguments are not supported".
# Reconstructed (mcx is not installed: the helper keeps the report's names; the integrator is a
# leapfrog step on a standard normal).
from functools import partial

import jax
import jax.numpy as jnp


def leapfrog(position, momentum, step_size):
    momentum = momentum - 0.5 * step_size * position
    position = position + step_size * momentum
    momentum = momentum - 0.5 * step_size * position
    return position, momentum


def longest_batch_before_turn(position, momentum, step_sizes):
    @partial(jax.jit, static_argnums=(2,))
    def run(position, momentum, step_sizes):
        def step(carry, step_size):
            new_carry = leapfrog(*carry, step_size)
            return new_carry, jnp.dot(new_carry[0] - position, new_carry[1])

        _, turning = jax.lax.scan(step, (position, momentum), step_sizes)
        return jnp.argmax(turning < 0)

    return run(position, momentum, step_sizes)  # expect: JAX1002


step_sizes = jnp.array([0.1, 0.2, 0.4, 0.8])
try:
    print(longest_batch_before_turn(jnp.ones(2), jnp.ones(2), step_sizes))
except ValueError as err:
    print(type(err).__name__, str(err)[:40])
