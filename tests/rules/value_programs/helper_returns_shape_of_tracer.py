# runtime: jax.errors.TracerBoolConversionError
# clean runtime: check: assert float(traced_sum[0, 0]) == 1.0
# dynamiqs's ptrace: `_hdim(x)` returns a dimension of its argument's shape, a Python int even
# of a tracer, so comparing it with the product of static dims is decided while tracing.
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np


def _hdim(x):
    return x[-1, 0]  # clean: return x.shape[-2] if x.shape[-1] == 1 else x.shape[-1]


@partial(jax.jit, static_argnums=(1,))
def ptrace(x, dims):
    hdim = _hdim(jnp.asarray(x))
    if np.prod(np.asarray(dims)) != hdim:  # expect: JAX701
        raise ValueError("dims do not match")
    return x


traced_sum = ptrace(jnp.ones((4, 4)), (2, 2))
