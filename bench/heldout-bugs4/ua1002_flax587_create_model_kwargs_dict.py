# Source: https://github.com/google/flax/issues/587 ("example/wmt broken by passing dict as
# static arg to jitted function")
# daniter-cu: examples/wmt/train.py jitted `create_model` with static_argnums=(1, 2, 3) and
# passed the `model_kwargs` dict in a static position; after JAX required hashable statics
# this raised "ValueError: Non-hashable static arguments are not supported ... unhashable
# type: 'dict'". Workaround from the report: pass a tuple.
# Adapted: the flax.nn model of 2020 is replaced by a small stand-in that builds parameters
# from the kwargs (flax.nn no longer exists); the call keeps the dict literal of the example.
import functools

import jax
import jax.numpy as jnp


@functools.partial(jax.jit, static_argnums=(1, 2, 3))
def create_model(key, input_shape, target_shape, model_kwargs):
    emb_dim = model_kwargs["emb_dim"]
    return jax.random.normal(key, (input_shape[-1], emb_dim)) * 0.02


try:
    model = create_model(
        jax.random.PRNGKey(0),
        (1, 16),
        (1, 16),
        {"vocab_size": 32000, "emb_dim": 64, "num_heads": 4},  # expect: JAX1002
    )
except ValueError as err:
    print(type(err).__name__, str(err)[:60])
