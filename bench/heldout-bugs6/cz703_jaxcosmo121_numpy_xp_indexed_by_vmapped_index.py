# Source: https://github.com/DifferentiableUniverseInitiative/jax_cosmo/issues/121 ("interpol crash")
# AlexGKim called jax_cosmo's interp with NumPy arrays:
# `jc.scipy.interpolate.interp(numpy.array([0.5,1.5]), numpy.array([0.,1.,2.]), ...)`.
# interp is vmapped over x; the NumPy xp is indexed with the traced index
# (`xi = xp[ind]`, interpolate.py:33): TracerArrayConversionError (shape int64[],
# BatchTracer). numpy.interp works. (jax_cosmo later made interp = jnp.interp.)
# Reconstructed (interp as the traceback's lines 30-35 show it, vmapped over x).
import functools

import jax.numpy as np
import numpy
from jax import errors, vmap


@functools.partial(vmap, in_axes=(0, None, None))
def interp(x, xp, fp):
    # Find the nearest interval
    ind = np.argmin((x - xp) ** 2)
    # Perform linear interpolation
    ind = np.clip(ind, 1, len(xp) - 2)
    xi = xp[ind]  # expect: JAX703
    # Figure out if we are on the right or the left of nearest
    lo = np.where(x < xi, ind - 1, ind)
    return fp[lo] + (x - xp[lo]) * (fp[lo + 1] - fp[lo]) / (xp[lo + 1] - xp[lo])


print(numpy.interp(numpy.array([0.5, 1.5]), numpy.array([0.0, 1.0, 2.0]), numpy.array([0.0, 1.0, 2.0])))
print(interp(np.array([0.5, 1.5]), np.array([0.0, 1.0, 2.0]), np.array([0.0, 1.0, 2.0])))
try:
    interp(numpy.array([0.5, 1.5]), numpy.array([0.0, 1.0, 2.0]), numpy.array([0.0, 1.0, 2.0]))
except errors.TracerArrayConversionError as err:
    print(type(err).__name__)
