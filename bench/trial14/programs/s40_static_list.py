from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("axes",))
def reduce_mean(x, axes):
    return jnp.mean(x, axis=axes)


x = jnp.ones((2, 3, 4))
print(reduce_mean(x, axes=(0, 2)))
print(reduce_mean(x, axes=[0, 2]))  # expect: JAX1002
