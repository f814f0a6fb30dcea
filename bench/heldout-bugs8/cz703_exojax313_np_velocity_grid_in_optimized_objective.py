# Source: https://github.com/HajimeKawahara/exojax/pull/313 ("Release v1.2"), comment by
# astrostevanus (2022-11-22).
# Running the optimize_spectrum_JAXopt tutorial, `jaxopt.GradientDescent(fun=objective).run(...)`
# fails with TracerArrayConversionError: the broadening kernel's `velocity_grid(resolution, vmax)`
# in utils/grids.py builds the grid with NumPy, and `vmax` comes from the fitted rotation speed.
# "it seems that the velocity_grid(resolution, vmax) in utils/grids.py needs use jnp instead of np".
# Reconstructed (exojax and jaxopt are not installed: jaxopt's solver jits value_and_grad of the
# objective, done here directly; the spectrum is a Gaussian line).
import jax
import jax.numpy as jnp
import numpy as np

C_KMS = 299792.458


def velocity_grid(resolution, vmax):
    dv = C_KMS / resolution
    num = 2 * 40 + 1
    return np.linspace(-vmax, vmax, num) + 0.0 * dv  # expect: JAX703


def rotation_kernel(resolution, vsini):
    vr = velocity_grid(resolution, vsini)
    kernel = jnp.sqrt(jnp.clip(1.0 - (vr / vsini) ** 2, 0.0))
    return kernel / jnp.sum(kernel)


nu_grid = np.linspace(4000.0, 4010.0, 200)
data = np.exp(-((nu_grid - 4005.0) ** 2) / 0.5)


def objective(params):
    vsini, depth = params
    line = depth * jnp.exp(-((nu_grid - 4005.0) ** 2) / 0.5)
    model = jnp.convolve(line, rotation_kernel(1e5, vsini), mode="same")
    return jnp.sum((model - data) ** 2)


print(objective(np.array([10.0, 1.0])))
try:
    print(jax.jit(jax.value_and_grad(objective))(jnp.array([10.0, 1.0])))
except jax.errors.TracerArrayConversionError as err:
    print(type(err).__name__)
