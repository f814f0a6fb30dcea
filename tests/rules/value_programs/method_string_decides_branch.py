# runtime: jax.errors.TracerArrayConversionError
# clean runtime: check: assert forward(jnp.ones(4)).shape == (4,)
# s2fft healpix_ffts.healpix_fft: one function dispatches on a method string to a NumPy or a
# JAX implementation; the jitted transform passes "jax", so `method.lower() == "numpy"` is
# False in its trace and the NumPy implementation is not traced through it.
import jax
import jax.numpy as jnp
import numpy as np


def fft_numpy(f):
    return np.fft.fft(f, norm="backward")  # expect: JAX703


def fft_jax(f):
    return jnp.fft.fft(f, norm="backward")


def healpix_fft(f, method="numpy"):
    if method.lower() == "numpy":
        return fft_numpy(f)
    elif method.lower() == "jax":
        return fft_jax(f)
    else:
        raise ValueError(f"Method {method} not recognised.")


@jax.jit
def forward(f):
    return healpix_fft(f, "NumPy")  # clean: return healpix_fft(f, "jax")


print(healpix_fft(np.ones(4)))  # eager: the NumPy implementation on NumPy values
forward(jnp.ones(4))
