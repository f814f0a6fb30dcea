# runtime: jax.errors.TracerArrayConversionError
# clean runtime: check: assert jax.jit(g)(np.array([1, 2])).shape == (2, 3) and float(pick(0, 0.5)) == 0.5
# jax #3133: a lambda bound to a name and jitted through the name (`jax.jit(g)(a)`) is traced
# like a `def`; so are lambdas listed by name as `lax.switch` branches.
# ruff: noqa: E731, SIM300
import jax
import jax.numpy as jnp
import numpy as np
from jax.lax import switch

g = lambda i: np.zeros((3, 3))[i, :]  # expect: JAX703  # clean: g = lambda i: jnp.zeros((3, 3))[i, :]


@jax.jit
def pick(index, x):
    low = lambda x: jnp.where((0.0 < x) and (x < 1.0), x, 0.0)  # expect: JAX702  # clean: low = lambda x: jnp.where((0.0 < x) & (x < 1.0), x, 0.0)
    high = lambda x: x + 1.0
    branches = [low, high]
    return switch(index, branches, x)


print(g(np.array([1, 2])).shape)
jax.jit(g)(np.array([1, 2]))
pick(1, 0.5)
