# .item() and float() on results outside jit are fine.
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def mse(pred, target):
    return jnp.mean((pred - target) ** 2)


pred = jnp.array([1.0, 2.0, 3.0])
target = jnp.array([1.5, 2.0, 2.0])
val = mse(pred, target)
print("mse", val.item(), float(val))
hist = np.zeros(3)
hist[0] = float(val)
print(hist.tolist())
