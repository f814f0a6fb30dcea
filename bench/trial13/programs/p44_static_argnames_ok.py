# Branch on a flag made static; correct.
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("activation", "n"))
def layer(x, activation="relu", n=3):
    if activation == "relu":
        x = jax.nn.relu(x)
    else:
        x = jnp.tanh(x)
    return jnp.tile(x, n)


print(layer(jnp.array([-1.0, 2.0]), activation="tanh", n=2))
