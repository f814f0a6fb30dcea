# Source: https://github.com/google/nerfies/issues/53 ("ndarray or scalar arguments, got <class
# 'list'> at position 0.")
# Initializing the model fails: "TypeError: broadcast_to requires ndarray or scalar arguments,
# got <class 'list'> at position 0." Fix: `jnp.broadcast_to([last_sample_z], ...)` ->
# `jnp.broadcast_to(last_sample_z, ...)` in model_utils.py line 107.
# Adapted: the volumetric-rendering helper around the quoted line.
import jax.numpy as jnp


def volumetric_rendering(rgb, sigma, z_vals, dirs, use_white_background, sample_at_infinity=True, eps=1e-10):
    last_sample_z = 1e10 if sample_at_infinity else 1e-19
    dists = jnp.concatenate(
        [
            z_vals[..., 1:] - z_vals[..., :-1],
            jnp.broadcast_to([last_sample_z], z_vals[..., :1].shape),  # expect: JAX501
        ],
        -1,
    )
    dists = dists * jnp.linalg.norm(dirs[..., None, :], axis=-1)
    alpha = 1.0 - jnp.exp(-sigma * dists)
    return jnp.sum(alpha[..., None] * rgb, axis=-2)


z_vals = jnp.linspace(0.0, 1.0, 8)[None, :]
try:
    out = volumetric_rendering(jnp.ones((1, 8, 3)), jnp.ones((1, 8)), z_vals, jnp.ones((1, 3)), False)
    print(out.shape)
except TypeError as err:
    print("TypeError:", str(err).splitlines()[0])
