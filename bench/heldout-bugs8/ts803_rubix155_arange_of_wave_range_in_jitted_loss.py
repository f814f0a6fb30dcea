# Source: https://github.com/AstroAI-Lab/rubix/issues/155 ("functions based on `jnp.arange`
# produce incompatibility with jax transformations.")
# MaHaWo jits the loss of a gradient notebook; the telescope helpers build the wavelength grid
# with `jnp.arange` from the telescope's wave range, which reaches the jitted function as an
# argument, so `start` is a tracer: ConcretizationTypeError "It arose in the jnp.arange argument
# 'start'", raised two calls below the loss (calculate_wave_seq via calculate_wave_edges).
# Reconstructed (rubix is not installed: the helpers keep the report's names and call chain).
import functools

import jax
import jax.numpy as jnp


def calculate_wave_seq(wave_range, wave_res):
    return jnp.arange(wave_range[0], wave_range[1], wave_res)  # expect: JAX803


def calculate_wave_edges(wave_range, wave_res):
    wave_seq = calculate_wave_seq(wave_range, wave_res)
    return jnp.concatenate([wave_seq - wave_res / 2, wave_seq[-1:] + wave_res / 2])


def spectrum_on_grid(age, metallicity, telescope):
    edges = calculate_wave_edges(telescope["wave_range"], telescope["wave_res"])
    centers = 0.5 * (edges[1:] + edges[:-1])
    return jnp.exp(-age * centers / 1e4) * metallicity


@functools.partial(jax.jit)
def loss(params, telescope, target):
    model = spectrum_on_grid(params["age"], params["metallicity"], telescope)
    return jnp.sum((model - target) ** 2)


telescope = {"wave_range": jnp.array([4700.0, 4800.0]), "wave_res": jnp.array(10.0)}
params = {"age": jnp.array(1.0), "metallicity": jnp.array(0.02)}
target = jnp.zeros(10)
print(spectrum_on_grid(1.0, 0.02, telescope).shape)
try:
    print(loss(params, telescope, target))
except jax.errors.ConcretizationTypeError as err:
    print(type(err).__name__)
