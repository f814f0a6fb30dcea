# Source: https://github.com/jax-ml/jax/issues/15727 ("Cannot use jit for @classmethod")
# SUSYUSTC stacked @classmethod over @jax.jit: the class itself is passed as the first
# argument of the jitted function, and jit cannot trace it: "TypeError: Cannot interpret
# value of type <class 'type'> as an abstract array; it does not have a dtype attribute".
# JiaYaobo: mark cls (and the shape) static: @partial(jax.jit, static_argnums=(0, 1)).
# Verbatim (the first example; try/except and the working version added).
from functools import partial

import jax
import jax.numpy as jnp


class A:
    def __init__(self):
        pass

    @classmethod
    @jax.jit  # expect: JAX401
    def zeros(shape):
        return jnp.zeros(shape)


try:
    print(A.zeros((2, 3)))
except TypeError as err:
    print(type(err).__name__, str(err)[:60])


class B:
    @classmethod
    @partial(jax.jit, static_argnums=(0, 1))
    def zeros(cls, shape):
        return jnp.zeros(shape)


print(B.zeros((2, 3)).shape)
