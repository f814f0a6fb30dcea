# Data-parallel step with pmap: only one CPU device here, so the leading axis is 1.
from functools import partial

import jax
import jax.numpy as jnp

n_dev = jax.local_device_count()


@partial(jax.pmap, axis_name="batch")
def grad_step(w, x, y):
    g = jax.grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)
    return jax.lax.pmean(g, axis_name="batch")


w = jnp.zeros((n_dev, 3))
x = jnp.ones((n_dev, 8, 3))
y = jnp.ones((n_dev, 8))
print(grad_step(w, x, y))
