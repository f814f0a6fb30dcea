# runtime: TypeError
import jax
import jax.numpy as jnp
from optax import tree_utils as otu


def loss(wb, xs):
    w, b = wb
    return jnp.sum((xs * w + b) ** 2)


xs = jnp.arange(4.0)
wb = (jnp.ones(4), jnp.zeros(4))
for _ in range(5):
    g = jax.grad(loss)(wb, xs)
    wb = otu.tree_sub(wb, otu.tree_scale(0.01, g))
    wb[1][0] += 1.0  # expect: JAX202  # clean: wb = (wb[0], wb[1].at[0].add(1.0))
