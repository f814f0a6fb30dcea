# runtime: jax.errors.TracerBoolConversionError
# clean runtime: check: assert float(out) == -6.0
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def step(x):
    metrics = {}
    metrics["loss"] = x.sum()
    if metrics["loss"] > 1:  # expect: JAX701  # clean: if x.shape[0] > 5:
        return x.sum()
    scratch = [np.zeros(3)]
    scratch.append(np.ones(3))
    scratch[1][0] = 2.0  # NumPy arrays in a list stay writable
    return -metrics["loss"]


out = step(jnp.array([1.0, 2.0, 3.0]))
