# runtime: jax.errors.TracerBoolConversionError
# clean runtime: check: assert out.tolist() == [1.0, 2.0, 3.0]
import jax
import jax.numpy as jnp
import numpy as np

y = jnp.arange(3.0)


@jax.jit
def shifted(x):
    # np.all hands the call to the tracer's own .all(): a traced bool, even of a module array
    if np.all(y <= 0):  # expect: JAX701  # clean: if np.all(np.asarray(HOST) <= 0):
        return x
    return x + y


HOST = [0.0, 1.0, 2.0]
out = shifted(1.0)
