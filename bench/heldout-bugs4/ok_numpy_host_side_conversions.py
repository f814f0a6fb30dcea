# ok: NumPy buffers are filled and indexed on the host; float()/complex()/int() convert
# concrete results outside jit; NumPy concatenates plain lists; the jitted part uses jnp only.
import jax
import jax.numpy as jnp
import numpy as np

buffer = np.zeros((3, 3))
for i in range(3):
    buffer[i, :] = (i, 2 * i, 3 * i)
rows = np.concatenate([[], [1]], 0)


@jax.jit
def objective(x, table):
    return jnp.sum(table[x] ** 2)


value = objective(jnp.array([0, 2]), jnp.asarray(buffer))
print(float(value), complex(value), int(value), rows)
print(np.zeros((3, 3))[np.array([1, 2]), :].shape)
print(jnp.broadcast_to(1e10, (4, 1)).shape, jnp.concatenate([jnp.zeros(1), jnp.ones(1)]))
