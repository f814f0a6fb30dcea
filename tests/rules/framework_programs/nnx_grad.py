# runtime: jax.errors.ConcretizationTypeError
import jax.numpy as jnp
from flax import nnx


def loss(x, weights):
    scale = float(weights[0])  # the second argument arrives as it is: concrete
    first = float(x[0])  # expect: JAX703  # clean: first = x[0]
    return (x * scale * first).sum()


grads = nnx.grad(loss)(jnp.ones(3), jnp.ones(3))
