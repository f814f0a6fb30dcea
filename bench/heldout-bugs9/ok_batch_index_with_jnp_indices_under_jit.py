# ok: the batch index is built with jnp.indices, so indexing with the traced index stays in JAX;
# np.indices is used only with a concrete Python index on the host.
import jax.numpy as jnp
import numpy as np
from jax import jit


def to_batch_shape_index(batch_shape, index):
    new_index = [x[index] for x in jnp.indices(batch_shape)]
    return jnp.stack(new_index, axis=-1)


def foo(logits):
    index = to_batch_shape_index(logits.shape[:-1], jnp.arange(logits.shape[0]))
    chosen = logits[tuple(jnp.moveaxis(index, -1, 0))]
    return -jnp.sum(chosen, axis=-1)


print(jit(foo)(jnp.zeros((3, 3, 3))).shape)
rows = [x[1] for x in np.indices((3, 3))]
print([r.tolist() for r in rows])
