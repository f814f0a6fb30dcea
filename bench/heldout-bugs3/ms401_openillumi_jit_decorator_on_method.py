# Source: https://openillumi.com/en/en-jax-jit-class-method-stale-cache-fix ("Stop JAX @jit
# Errors in Class Methods"; a Stack Overflow question retold)
# The user put @jit on a method `calc` of CustomClass and got "TypeError: ... of type
# <class 'CustomClass'> is not a valid JAX type", while `jit(c.calc)` seemed to work (and then
# kept a stale `mul`). Reconstructed from the article (names CustomClass, calc, mul as there).
import jax
import jax.numpy as jnp
from jax import jit


class CustomClass:
    def __init__(self, mul):
        self.mul = mul

    @jit  # expect: JAX401
    def calc(self, x):
        return x * self.mul


c = CustomClass(2)
try:
    print(c.calc(jnp.arange(3)))
except TypeError as err:
    print("TypeError:", str(err)[:70])
