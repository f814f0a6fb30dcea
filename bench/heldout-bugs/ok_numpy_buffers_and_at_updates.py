# ok: NumPy buffers filled in place, then handed to JAX; JAX arrays updated with .at[] and the
# result kept; numpy arrays indexed beyond nothing.
import jax.numpy as jnp
import numpy as np

x_train = np.zeros((3 * 4, 8, 8, 3), dtype=np.float32)
for i in range(1, 4):
    data = np.full((4, 8, 8, 3), float(i), dtype=np.float32)
    x_train[(i - 1) * 4 : i * 4, :, :, :] = data
x_train = jnp.asarray(x_train)

v = np.arange(10)
v[2:4] += 1

w = jnp.arange(10)
w = w.at[2:4].add(1)
w = w.at[0].set(-1)
counts = jnp.zeros(3, dtype=jnp.int32).at[jnp.array([0, 2, 2])].add(1)
print(float(x_train.sum()), v.tolist(), w.tolist(), counts.tolist())
