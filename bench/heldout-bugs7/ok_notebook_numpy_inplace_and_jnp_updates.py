# ok: a notebook that fills NumPy buffers in place, converts them once, and updates the
# JAX copy functionally with .at (kept), alongside list-valued Python bookkeeping.
import jax
import jax.numpy as jnp
import numpy as np

table = np.zeros((4, 3))
for i in range(4):
    table[i, :] = (i, 2 * i, 3 * i)
    table[i, 0] += 1

modes = jnp.asarray(table)
modes = modes.at[0, 0].set(-1.0)
history = []
for step in range(3):
    modes = modes.at[step, 1].add(1.0)
    history.append(float(modes[step, 1]))


@jax.jit
def energy(m):
    return jnp.sum(m**2)


print(energy(modes), history)
