# Source: https://github.com/aesara-devs/aesara/issues/89 ("jax.numpy.unique: \"Abstract
# tracer value encountered where concrete value is expected.\" error")
# After jax 0.2.1, aesara's JAX backend failed in jnp.unique under jit; the MWE jits a
# partial that binds a NumPy array: the bound array becomes a traced argument and
# jnp.unique without size= raises ConcretizationTypeError.
# Verbatim MWE; try/except added.
import numpy as np
import jax

from functools import partial


a = np.arange(6).reshape((3, 2))

def unique(x):
    return jax.numpy.unique(x)  # expect: JAX802


print(unique(a))
try:
    print(jax.jit(partial(unique, a))())
except Exception as e:
    print(type(e).__name__)
