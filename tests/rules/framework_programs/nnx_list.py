# runtime: jax.errors.TracerBoolConversionError
import jax.numpy as jnp
from flax import nnx


class Layer(nnx.Module):
    def __init__(self, rngs):
        self.linear = nnx.Linear(3, 3, rngs=rngs)

    def __call__(self, x):
        if x.sum() > 0:  # expect: JAX701  # clean: x = jnp.where(x.sum() > 0, -x, x)
            x = -x  # clean:
        return self.linear(x)


class Net(nnx.Module):
    def __init__(self, rngs):
        self.layers = nnx.List([Layer(rngs) for _ in range(2)])

    def __call__(self, x):
        total = jnp.zeros(3)
        for layer in self.layers:
            total = total + layer(x)
        return total


@nnx.jit
def forward(model, x):
    return model(x)


out = forward(Net(nnx.Rngs(0)), jnp.ones(3))
