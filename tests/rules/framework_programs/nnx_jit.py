# runtime: jax.errors.TracerBoolConversionError
import jax.numpy as jnp
from flax import nnx


class Block(nnx.Module):
    def __init__(self, rngs):
        self.layers = nnx.List([nnx.Linear(3, 3, rngs=rngs), nnx.Linear(3, 3, rngs=rngs)])

    def __call__(self, x):
        if x.sum() > 0:  # expect: JAX701  # clean: x = jnp.where(x.sum() > 0, -x, x)
            x = -x  # clean:
        for layer in self.layers:
            x = layer(x)
        return x


@nnx.jit
def forward(model, x):
    return model(x)


out = forward(Block(nnx.Rngs(0)), jnp.ones(3))
