# %% [1]
import jax
import jax.numpy as jnp
from functools import partial
# %% [2]
@jax.jit
def positional_encoding(seq_len, d_model):
    pos = jnp.arange(seq_len)[:, None]  # expect: JAX803
    i = jnp.arange(d_model)[None, :]  # expect: JAX803
    angle = pos / jnp.power(10000.0, (2 * (i // 2)) / d_model)
    return jnp.where(i % 2 == 0, jnp.sin(angle), jnp.cos(angle))
# %% [3]
positional_encoding(10, 16).shape
# %% [4]
@partial(jax.jit, static_argnames=("seq_len", "d_model"))
def positional_encoding(seq_len, d_model):
    pos = jnp.arange(seq_len)[:, None]
    i = jnp.arange(d_model)[None, :]
    angle = pos / jnp.power(10000.0, (2 * (i // 2)) / d_model)
    return jnp.where(i % 2 == 0, jnp.sin(angle), jnp.cos(angle))
