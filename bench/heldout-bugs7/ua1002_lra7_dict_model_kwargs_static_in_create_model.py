# Source: https://github.com/google-research/long-range-arena/issues/7 ("ValueError: Non-hashable static arguments are not supported")
# Training the listops Transformer from the README fails in lra_benchmarks/listops/train.py
# with "ValueError: Non-hashable static arguments are not supported": the model is created
# by a function jitted with static_argnums, and one of the static arguments is a dict
# (the model's keyword arguments) once jax began requiring hashable static arguments.
# Reconstructed (the report gives the traceback; a linen model and a `create_model`
# jitted with static input shape and model kwargs stand in for the benchmark's).
import functools

import flax.linen as nn
import jax
import jax.numpy as jnp


class TransformerEncoder(nn.Module):
    vocab_size: int
    emb_dim: int = 16

    @nn.compact
    def __call__(self, tokens):
        x = nn.Embed(self.vocab_size, self.emb_dim)(tokens)
        return nn.Dense(10)(jnp.mean(x, axis=1))


@functools.partial(jax.jit, static_argnums=(1, 2))
def create_model(key, input_shape, model_kwargs):
    module = TransformerEncoder(**dict(model_kwargs))
    return module.init(key, jnp.ones(input_shape, jnp.int32))


try:
    variables = create_model(jax.random.key(0), (4, 32), {"vocab_size": 14, "emb_dim": 16})  # expect: JAX1002
    print(jax.tree_util.tree_map(jnp.shape, variables))
except ValueError as err:
    print(type(err).__name__)
variables = create_model(jax.random.key(0), (4, 32), (("vocab_size", 14), ("emb_dim", 16)))
print(jax.tree_util.tree_map(jnp.shape, variables)["params"]["Dense_0"]["kernel"])
