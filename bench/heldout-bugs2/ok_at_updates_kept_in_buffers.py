# OK (no findings expected): .at updates whose results are kept: a dict of feedback
# buffers rebuilt with the updated arrays (counterpart of du203_reservoirpy240), an
# update returned from a fori_loop body, and a NumPy buffer filled in place.
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def push(buffers, outputs):
    new_buffers = {}
    for edge, buffer in buffers.items():
        buffer = buffer.at[-1].set(outputs[edge])
        new_buffers[edge] = jnp.roll(buffer, 1, axis=0)
    return new_buffers


@partial(jax.jit, static_argnums=1)
def squares(x, n):
    def body(i, acc):
        return acc.at[i].set(i * i)

    return jax.lax.fori_loop(0, n, body, x)


buffers = {"a": jnp.zeros((2, 3)), "b": jnp.zeros((1, 3))}
print(push(buffers, {"a": jnp.ones(3), "b": jnp.full(3, 2.0)}))
print(squares(jnp.zeros(5, dtype=jnp.int32), 5))

host = np.zeros((4, 2))
for i in range(4):
    host[i, :] = (i, 2 * i)
print(jnp.asarray(host).sum())
