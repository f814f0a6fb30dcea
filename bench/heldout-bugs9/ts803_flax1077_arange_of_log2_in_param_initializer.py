# Source: https://github.com/google/flax/issues/1077 ("Shape-dependent initialization gives
# concretization error at apply.", GJBoth, 2021-03-03). A Hadamard-matrix initializer loops
# `for i in jnp.arange(lg2)` with `lg2 = jnp.log2(shape[0])`; when the initializer is traced
# (here: the module initialised under jax.jit), `jnp.log2` of the static size is a tracer and
# `jnp.arange` of it needs a concrete value: ConcretizationTypeError. `math.log2` would keep
# the size on the host.
# Adapted (the report's initializer and module; the jitted init added to show the error).
import flax.linen as nn
import jax
import jax.numpy as jnp
from jax import random


def hadamard(key, shape, dtype=jnp.float32):
    lg2 = jnp.log2(shape[0])
    H = jnp.ones((1,), dtype=dtype)
    for i in jnp.arange(lg2):  # expect: JAX803
        H = jnp.vstack([jnp.hstack([H, H]), jnp.hstack([H, -H])])
    H = 2 ** (-lg2 / 2) * H
    return H


class HadamardTransform(nn.Module):
    n_hadamard: int

    @nn.compact
    def __call__(self, X):
        kernel = self.param("kernel", hadamard, (self.n_hadamard,))
        return jnp.dot(X, kernel)


key = random.PRNGKey(42)
X = random.normal(key, (1, 8))
model = HadamardTransform(8)
print(model.init(key, X)["params"]["kernel"].shape)
try:
    jax.jit(model.init)(key, X)
except jax.errors.ConcretizationTypeError as err:
    print(type(err).__name__)
