# runtime: ok
import jax
import jax.numpy as jnp
import numpy as np
from optax import tree_utils as otu


def loss(wb, xs):
    w, b = wb
    return jnp.sum((xs * w + b) ** 2)


xs = jnp.arange(4.0)
wb = (jnp.ones(4), jnp.zeros(4))
for _ in range(5):
    g = jax.grad(loss)(wb, xs)
    wb = otu.tree_sub(wb, otu.tree_scale(0.01, g))
    host = jax.tree.map(np.array, wb)
    host[1][0] += 1.0
