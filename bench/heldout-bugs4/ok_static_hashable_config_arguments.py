# ok: static arguments are hashable (tuples, ints, strings); arrays travel as traced args.
import functools

import jax
import jax.numpy as jnp


@functools.partial(jax.jit, static_argnums=(1, 2, 3))
def create_model(key, input_shape, target_shape, model_kwargs):
    emb_dim = dict(model_kwargs)["emb_dim"]
    return jax.random.normal(key, (input_shape[-1], emb_dim)) * 0.02


@functools.partial(jax.jit, static_argnames=("num",))
def foo(x, val, num):
    return x[:num] + val


params = create_model(jax.random.PRNGKey(0), (1, 16), (1, 16), (("emb_dim", 64), ("num_heads", 4)))
print(params.shape)
print(foo(jnp.arange(10), jnp.arange(5), num=5))
