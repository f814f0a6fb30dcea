# Source: https://github.com/google-deepmind/emergent_communication_at_scale/issues/2 ("Access values at execution time")
# bastienvanderplaetse prints the listener's loss outputs during training and sees only
# `ListenerLossOutputs(loss=Traced<ShapedArray(float32[])>with<JVPTrace(level=2/1)> ...`:
# the print runs while the jitted, differentiated update is traced, not at each step.
# The maintainers point to jaxline's flag that disables jit for debugging.
# Reconstructed (an rlax-style listener loss under value_and_grad inside a jitted update;
# the print of the loss outputs is the report's).
from typing import NamedTuple

import jax
import jax.numpy as jnp


class ListenerLossOutputs(NamedTuple):
    loss: jax.Array
    accuracy: jax.Array


def listener_loss(params, message, targets):
    logits = message @ params
    loss = jnp.mean(jax.nn.logsumexp(logits, axis=-1) - jnp.sum(logits * targets, axis=-1))
    outputs = ListenerLossOutputs(loss, jnp.mean(jnp.argmax(logits, -1) == jnp.argmax(targets, -1)))
    print(outputs)  # expect: JAX101
    return loss, outputs


@jax.jit
def update(params, message, targets):
    (loss, outputs), grads = jax.value_and_grad(listener_loss, has_aux=True)(params, message, targets)
    return params - 0.1 * grads, outputs


params = jnp.zeros((4, 3))
message = jnp.ones((8, 4))
targets = jax.nn.one_hot(jnp.arange(8) % 3, 3)
for step in range(3):
    params, outputs = update(params, message, targets)
print("steps run: 3, listener loss:", float(outputs.loss))
