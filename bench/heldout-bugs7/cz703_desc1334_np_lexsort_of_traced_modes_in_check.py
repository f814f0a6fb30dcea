# Source: https://github.com/PlasmaControl/DESC/issues/1334 ("Problem encountered while optimizing for Ideal-ballooning modes")
# Optimising with a jitted objective fails in `transform.py::_check_inputs_fft`:
# `id2 = np.lexsort((basis.modes[:, 1], basis.modes[:, 0], basis.modes[:, 2]))` receives
# a traced modes array: TracerArrayConversionError ("__array__() was called on traced
# array with shape int64[696]").
# Adapted (DESC's Basis/Transform are replaced by a mode table passed to the jitted
# objective and a helper that checks its ordering; the lexsort line is the report's).
import jax
import jax.numpy as jnp
import numpy as np


def check_inputs_fft(modes):
    id2 = np.lexsort((modes[:, 1], modes[:, 0], modes[:, 2]))  # expect: JAX703
    return modes[id2]


def compute_scaled_error(x, modes):
    sorted_modes = check_inputs_fft(modes)
    return jnp.sum((x * sorted_modes[:, 0]) ** 2)


modes = jnp.array([[0, 1, 0], [1, 0, 1], [0, 0, 1], [1, 1, 0]])
print(compute_scaled_error(jnp.ones(4), modes))
try:
    print(jax.jit(compute_scaled_error)(jnp.ones(4), modes))
except jax.errors.TracerArrayConversionError as err:
    print(type(err).__name__)
