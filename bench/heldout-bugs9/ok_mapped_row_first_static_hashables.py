# ok: the mapped row is passed first through a lambda, the static positions get hashable floats,
# and functools.partial binds keywords only.
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=(1, 2))
def map_row(z, alpha, T):
    return jnp.tanh(alpha * z / T)


@partial(jax.jit, static_argnames=("scale",))
def shift_row(z, scale):
    return z + scale


rows = jnp.arange(6.0).reshape(3, 2)
print(jax.vmap(lambda z: map_row(z, 0.5, 2.0))(rows))
print(jax.vmap(partial(shift_row, scale=1.5))(rows))
