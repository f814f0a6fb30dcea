# Source: https://github.com/reservoirpy/reservoirpy/pull/240 ("Fix jax backend correctness
# bugs (silent no-op .at[] updates, stale jit constants, ignored warmup) ...")
# "`Model._step` (`jax/model.py`): discarded `.at[-1].set()` on the feedback buffer ->
# feedback/delayed edges deliver zeros forever (buffer stays exactly 0.0 while the sender
# state is nonzero; the numpy backend fills its buffer)".
# Adapted: Model._step of reservoirpy's jax backend kept line for line (jitted with a
# static self); the Node class, graph helpers and initialize() are replaced by a small
# stand-in with one reservoir-like node feeding back into itself with delay 1.
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np


class Node:
    def __init__(self, name, dim):
        self.name = name
        self.output_dim = dim
        self.state = {"out": jnp.zeros((dim,))}

    def _step(self, state, x):
        return {"out": jnp.tanh(x[: self.output_dim] + 0.5)}


class Model:
    def __init__(self, node):
        self.execution_order = [node]
        self.parents = {node: []}
        self.nodes = [node]
        self.feedback_buffers = {(node, 1, node): np.zeros((1, node.output_dim))}

    @partial(jax.jit, static_argnums=(0,))
    def _step(self, state, x):
        buffers, node_states = state

        new_state = {}

        for node in self.execution_order:
            inputs = []
            if node in x:
                inputs.append(x[node])
            inputs += [new_state[parent]["out"] for parent in self.parents[node]]
            inputs += [buffer[-1] for (_p, _d, c), buffer in buffers.items() if c == node]
            node_input = jnp.concatenate(inputs, axis=-1)
            new_state[node] = node._step(node_states[node], node_input)

        new_buffers = {edge: buffer.copy() for edge, buffer in buffers.items()}
        for (p, d, c), buffer in new_buffers.items():
            buffer.at[-1].set(new_state[p]["out"])  # expect: JAX203
            new_buffers[(p, d, c)] = jnp.roll(buffer, 1, axis=0)

        return new_buffers, new_state


res = Node("res", 3)
model = Model(res)
state = ({k: jnp.asarray(v) for k, v in model.feedback_buffers.items()}, {res: res.state})
for _ in range(3):
    buffers, states = model._step(state, {res: jnp.ones((3,))})
    state = (buffers, states)
print("node output:", states[res]["out"])
print("feedback buffer:", list(buffers.values())[0])
