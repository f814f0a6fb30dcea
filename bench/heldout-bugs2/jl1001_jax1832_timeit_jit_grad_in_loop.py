# Source: https://github.com/jax-ml/jax/issues/1832 ("JAX performance can be better
# (comparison with PyTorch)")
# mattjj: "when you use `jit`, you should probably do it once outside the timing loop.
# Otherwise ... you're paying the recompilation cost each time. ... when you write
# `%timeit jit(grad(...)) ...` you're probably doing a lot of recompilation."
# Adapted: the notebook's `%timeit jit(grad(func_jax))(x)` written as the loop timeit
# runs; func_jax is the scan version from the thread. The evidence counts traces.
import time

import jax.numpy as np
from jax import grad, jit, lax

n_traces = 0


def func_jax(x):
    global n_traces
    n_traces += 1

    def body(f_prev, x_i):
        return f_prev + x_i, f_prev + x_i

    _, f = lax.scan(body, 0.0, x)
    return np.sum(f)


x = np.arange(100.0)
start = time.perf_counter()
for _ in range(5):
    g = jit(grad(func_jax))(x)  # expect: JAX1001
print("traces:", n_traces, "seconds:", round(time.perf_counter() - start, 3))
