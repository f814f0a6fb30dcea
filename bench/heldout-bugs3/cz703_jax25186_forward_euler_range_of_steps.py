# Source: https://github.com/jax-ml/jax/issues/25186 ("Value becoming a tracer error")
# alexandermm's jitted forwardEuler failed with "TracerIntegerConversionError: The __index__()
# method was called on traced array with shape int64[] ... operation a:i64[] = sub b c" (the
# number of steps computed from two traced arguments) and asked how to make a jnp array static.
# Reconstructed: the listing is cut before forwardEuler's body in our copy; the function
# keeps the reported shape of the bug (a step count from a subtraction of traced integers,
# used by range()). x64 as in the user's script.
from functools import partial

import jax
import jax.numpy as jnp
from jax import config

config.update('jax_enable_x64', True)
realType = jnp.float64


@jax.jit
def forwardEuler(z0, dt, nStart, nEnd):
    nSteps = nEnd - nStart
    z = z0
    for i in range(nSteps):  # expect: JAX703
        z = z + dt * (-z)
    return z


try:
    print(forwardEuler(jnp.array(1.0, dtype=realType), 0.01, 0, 100))
except jax.errors.TracerIntegerConversionError as err:
    print(type(err).__name__)
print(partial(jax.jit, static_argnums=(2, 3))(forwardEuler.__wrapped__)(1.0, 0.01, 0, 100))
