# Loading NumPy batches, mutating them, then device_put; correct.
import jax
import numpy as np

batch = np.random.rand(4, 3).astype(np.float32)
batch[:, 0] = 0.0
batch[batch > 0.5] = 1.0
dev = jax.devices()[0]
x = jax.device_put(batch, dev)
print(x.devices(), x.sum())
