# runtime: jax.errors.ConcretizationTypeError
# clean runtime: check: assert found.tolist() == [0, 1, 2, 3, 4, 5]
# aesara #89: jit of a partial that binds a NumPy array; the bound array is a Python value,
# but jnp.unique is staged under jit and sees a tracer all the same.
from functools import partial

import jax
import numpy as np

a = np.arange(6).reshape((3, 2))


def unique(x):
    return jax.numpy.unique(x)  # expect: JAX802  # clean: return jax.numpy.unique(x, size=x.size)


found = jax.jit(partial(unique, a))()
