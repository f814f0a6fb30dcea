# Source: https://github.com/patrick-kidger/equinox/issues/236 ("filter_jit static_argnames")
# The user jitted a function taking an equinox Module, an array and a callable, and got
# "Shapes must be 1D sequences of concrete values of integer type, got Traced<int32[3]>".
# patrick-kidger: something inside builds an array from a shape that is a jit argument,
# e.g. jax.numpy.zeros(shape); shapes must be static.
# Reconstructed from the maintainer's diagnosis (module, shape argument and call made up).
from functools import partial

import equinox as eqx
import jax
import jax.numpy as jnp


class Scale(eqx.Module):
    weight: jax.Array

    def __call__(self, x):
        return self.weight * x


@partial(jax.jit, static_argnames=["myfunction"])
def jit_function(mymodule, myarray, myfunction):
    buffer = jnp.zeros(myarray)  # expect: JAX803
    return myfunction(mymodule(buffer + 1.0))


module = Scale(jnp.ones((2, 3, 4)))
try:
    jit_function(module, jnp.array([2, 3, 4]), jnp.tanh)
except TypeError as err:
    print(type(err).__name__, str(err)[:60])
