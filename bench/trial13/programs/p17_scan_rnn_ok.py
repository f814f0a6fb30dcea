# Elman RNN with lax.scan; correct.
import jax
import jax.numpy as jnp
from jax import lax

key = jax.random.key(0)
k1, k2, k3 = jax.random.split(key, 3)
Wx = jax.random.normal(k1, (3, 8)) * 0.1
Wh = jax.random.normal(k2, (8, 8)) * 0.1
xs = jax.random.normal(k3, (20, 3))


def cell(h, x):
    h = jnp.tanh(x @ Wx + h @ Wh)
    return h, h


@jax.jit
def rnn(xs):
    h0 = jnp.zeros(8)
    hT, hs = lax.scan(cell, h0, xs)
    return hT, hs


hT, hs = rnn(xs)
print(hT.shape, hs.shape)
