# ok: the wavelength grid is built once on the host with NumPy from a static configuration and
# passed to the jitted loss as data; a size used as a shape is a static argument (rubix's and
# mcx's fixes).
import functools

import jax
import jax.numpy as jnp
import numpy as np

TELESCOPE = {"wave_range": (4700.0, 4800.0), "wave_res": 10.0}


def calculate_wave_seq(wave_range, wave_res):
    return np.arange(wave_range[0], wave_range[1], wave_res)


wave_centers = calculate_wave_seq(TELESCOPE["wave_range"], TELESCOPE["wave_res"])


@jax.jit
def loss(params, centers, target):
    model = jnp.exp(-params["age"] * centers / 1e4) * params["metallicity"]
    return jnp.sum((model - target) ** 2)


@functools.partial(jax.jit, static_argnums=(1,))
def padded_ones(x, size):
    return jnp.concatenate([x, jnp.ones(size)])


params = {"age": jnp.array(1.0), "metallicity": jnp.array(0.02)}
print(loss(params, wave_centers, jnp.zeros(wave_centers.shape[0])))
print(padded_ones(jnp.zeros(2), 3))
