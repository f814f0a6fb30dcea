# Source: https://github.com/ColmTalbot/gwpopulation/issues/107 ("JittedLikelihood cosmo implementation failed")
# With a cosmology in the population model, the jitted likelihood fails:
# TracerArrayConversionError "... depends on the value of the argument parameters['H0']".
# The redshift model builds a cosmology object from the sampled Hubble constant, and the
# cosmology stores it as a NumPy value.
# Reconstructed (a small flat-LCDM class that keeps H0 as a NumPy float, as astropy-style
# cosmologies do, stands in for the backend; the parameters dict and its traced 'H0' are
# the report's).
import jax
import jax.numpy as jnp
import numpy as np

C_KM_S = 299792.458
Z_GRID = np.linspace(0.0, 2.0, 64)


class FlatLambdaCDM:
    def __init__(self, H0, Om0):
        self.H0 = np.array(H0, dtype=float)  # expect: JAX703
        self.Om0 = Om0

    def comoving_distance(self, z):
        ez = jnp.sqrt(self.Om0 * (1 + Z_GRID) ** 3 + (1 - self.Om0))
        dc = C_KM_S / self.H0 * jnp.cumsum(1 / ez) * (Z_GRID[1] - Z_GRID[0])
        return jnp.interp(z, Z_GRID, dc)


def generic_bilby_likelihood_function(parameters, redshifts):
    cosmology = FlatLambdaCDM(parameters["H0"], parameters["Om0"])
    dvc_dz = cosmology.comoving_distance(redshifts) ** 2
    return jnp.sum(jnp.log(dvc_dz + 1e-6))


params = {"H0": 67.7, "Om0": 0.31}
samples = jnp.linspace(0.1, 1.5, 10)
print(generic_bilby_likelihood_function(params, samples))
try:
    print(jax.jit(generic_bilby_likelihood_function)(params, samples))
except jax.errors.TracerArrayConversionError as err:
    print(type(err).__name__)
