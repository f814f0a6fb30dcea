# Pure NumPy preprocessing next to JAX; in-place NumPy ops and float64 are fine.
import jax.numpy as jnp
import numpy as np

rng = np.random.default_rng(0)
data = rng.normal(size=(100, 3))
data[data < -2] = -2
data -= data.mean(axis=0)
data /= data.std(axis=0)
labels = (data[:, 0] > 0).astype(np.int64)
counts = np.zeros(2, dtype=np.int64)
for l in labels:
    counts[l] += 1
x = jnp.asarray(data, dtype=jnp.float32)
print(counts, x.dtype, x.shape)
