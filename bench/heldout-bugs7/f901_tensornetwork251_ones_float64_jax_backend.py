# Source: https://github.com/google/TensorNetwork/issues/251 ("jax backend is not supporting float64")
# mganahl: with the jax backend a float64 tensor network silently becomes float32;
# `jax.numpy.ones((2,2), dtype=np.float64)` gives float32 unless 64-bit mode is enabled.
# Verbatim (the reporter's two lines; the backend's node creation is added around them).
import jax
import numpy as np


def add_node(tensor, backend="jax", dtype=np.float64):
    if backend == "jax":
        return jax.numpy.asarray(tensor, dtype=dtype)
    return np.asarray(tensor, dtype=dtype)


a = jax.numpy.ones((2, 2), dtype=np.float64)  # expect: JAX901
print(a.dtype)
print(add_node(np.random.rand(2, 3), backend="numpy").dtype)
