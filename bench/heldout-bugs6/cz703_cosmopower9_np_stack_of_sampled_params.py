# Source: https://github.com/dpiras/cosmopower-jax/issues/9 ("Setting up model with Numpyro?")
# karenperezsarmiento sampled cosmological parameters in a numpyro model and passed them to
# the emulator's predict() as a dict; predict stacked the dict's values with NumPy
# (numpy/core/shape_base.py: stack) and NUTS, which traces the model, failed with
# TracerArrayConversionError. Her fix: pass the parameters as an array instead of a dict.
# Reconstructed (numpyro is not installed: sample() draws from a key and a jitted potential
# stands in for NUTS tracing the model; the emulator is a small linear map).
import jax
import jax.numpy as jnp
import numpy as np

PARAM_NAMES = ["omega_cdm", "omega_b", "logA", "h", "n_s"]
W = np.linspace(0.1, 1.0, 5 * 8).reshape(5, 8)


class Emulator:
    def predict(self, params):
        if isinstance(params, dict):
            params = np.stack([params[name] for name in PARAM_NAMES], axis=-1)  # expect: JAX703
        return jnp.asarray(params) @ W


emulator = Emulator()


def like(theta, datavec):
    params = {name: theta[i] for i, name in enumerate(PARAM_NAMES)}
    model_vec = emulator.predict(params)
    return -0.5 * jnp.sum((model_vec - datavec) ** 2)


datavec = np.ones(8)
theta0 = np.array([0.12, 0.022, 3.0, 0.7, 0.96])
print(like(theta0, datavec))  # eager: fine
potential = jax.jit(like)  # what NUTS does with the model
try:
    print(potential(jnp.asarray(theta0), datavec))
except jax.errors.TracerArrayConversionError as err:
    print(type(err).__name__)
