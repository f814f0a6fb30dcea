# ok: a shift count computed eagerly and passed as a static argument, a sample count marked
# static in a jitted render step, and a Python int (not a jnp result) at static_argnums.
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np


def num_shifts_on_host(cell, cutoff):
    inv_lengths = np.linalg.norm(np.linalg.inv(np.asarray(cell)), axis=-1)
    return int(np.ceil(inv_lengths * cutoff).max())


@partial(jax.jit, static_argnames=("max_shifts",))
def shifted_images(positions, max_shifts):
    offsets = jnp.arange(-max_shifts, max_shifts + 1)
    return positions[:, None, 0] + offsets[None, :]


@partial(jax.jit, static_argnums=(3,))
def render(rays_o, near, far, n_samples):
    z_vals = jnp.linspace(near, far, n_samples)
    return rays_o[..., None, 0] * z_vals


f_jit = jax.jit(lambda x: jnp.arange(-x, x), static_argnums=0)

cell = np.eye(3)[None] * 5.0
print(shifted_images(jnp.zeros((2, 3)), num_shifts_on_host(cell, 6.0)).shape)
print(render(jnp.ones((4, 3)), 2.0, 6.0, 16).shape)
print(f_jit(int(jnp.add(4, 1))))
