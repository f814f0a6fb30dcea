# OK (no findings expected): jit(grad(f)) built once outside the timing loop
# (counterpart of jl1001_jax1832), jax.debug.print inside a jitted update and a grad
# loss (counterparts of p101_jax196 and p101_jax19887), print of Python values and of
# results outside jit.
import time

import jax
import jax.numpy as jnp
from jax import grad, jit, lax


def func_jax(x):
    def body(f_prev, x_i):
        return f_prev + x_i, f_prev + x_i

    _, f = lax.scan(body, 0.0, x)
    return jnp.sum(f)


grad_jit = jit(grad(func_jax))
x = jnp.arange(100.0)
start = time.perf_counter()
for _ in range(5):
    g = grad_jit(x)
print("seconds:", round(time.perf_counter() - start, 3))


def loss(params, batch):
    inputs, targets = batch
    err = jnp.mean((inputs @ params - targets) ** 2)
    jax.debug.print("loss {l}", l=err)
    return err


@jit
def update(i, params, batch):
    jax.debug.print("step {i}", i=i)
    return params - 0.1 * grad(loss)(params, batch)


params = jnp.zeros((3, 1))
batch = (jnp.ones((8, 3)), jnp.ones((8, 1)))
for i in range(2):
    params = update(i, params, batch)
print("final", params.ravel())
