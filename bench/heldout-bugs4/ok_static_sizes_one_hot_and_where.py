# ok: sizes are static (static_argnames / Python ints from shapes), size-dependent ops get
# size=, loop counts are static, and in-bounds indices only.
from functools import partial

import jax
import jax.numpy as jnp
from jax.nn import one_hot


@partial(jax.jit, static_argnames=("num_classes",))
def encode_labels(labels, num_classes):
    return one_hot(labels, num_classes)


@partial(jax.jit, static_argnames=("n",))
def idx_n_th_occurence(operand, occurence, n=0):
    return jnp.where(operand == occurence, size=n + 1, fill_value=-1)[0][n]


@partial(jax.jit, static_argnums=(1,))
def walk(x, num_steps):
    for _ in range(num_steps):
        x = x + 1.0
    return x


x = jnp.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
print(encode_labels(jnp.array([0, 2]), 3))
print(idx_n_th_occurence(jnp.array([1.0, 2.0, 1.0]), 1.0, n=1))
print(walk(jnp.float32(0.0), 4), x.take(jnp.array([2]), axis=0), x[x.shape[0] - 1])
