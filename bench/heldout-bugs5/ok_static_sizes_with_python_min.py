# ok: shapes are built from static arguments and Python ints (min() of a static int and a
# shape); the equinox module keeps its shape in a static field.
from functools import partial

import equinox as eqx
import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=(0,))
def first_n(n, x):
    n_actual = min(jnp.shape(x)[0], n)
    return jnp.arange(n_actual) + x[:n_actual]


class Buffer(eqx.Module):
    scale: jax.Array
    shape: tuple = eqx.field(static=True)

    def __call__(self, x):
        return jnp.zeros(self.shape) + self.scale * x


@eqx.filter_jit
def run(module, x):
    return jnp.tanh(module(x))


print(first_n(5, jnp.arange(10)))
print(run(Buffer(jnp.ones(()), (2, 3)), 1.0).shape)
