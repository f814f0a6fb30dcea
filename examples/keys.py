"""Random numbers (JAX601, JAX602)."""

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def add_noise(x):
    return x + np.random.normal()  # drawn once, at trace time


def init_params(key):
    w = jax.random.normal(key, (3, 3))
    b = jax.random.normal(key, (3,))  # the same key: correlated with w
    return w, b


def init_params_split(key):
    key, w_key, b_key = jax.random.split(key, 3)
    return jax.random.normal(w_key, (3, 3)), jax.random.normal(b_key, (3,)), jnp.zeros(3)
