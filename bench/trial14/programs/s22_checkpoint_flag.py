import jax
import jax.numpy as jnp


def layer(w, x, training):
    h = jnp.tanh(x @ w)
    if training:  # expect: JAX701
        h = h * 0.5
    return h


remat_layer = jax.checkpoint(layer)
w = jnp.eye(3)
print(jax.grad(lambda w: remat_layer(w, jnp.ones(3), True).sum())(w))
