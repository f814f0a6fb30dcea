# Source: https://github.com/naruya/VaxNeRF/issues/6 ("TypeError: broadcast_to requires ndarray
# or scalar arguments, got <class 'list'> at position 0.")
# VaxNeRF's model_utils.volumetric_rendering did `jnp.broadcast_to([1e10], z_vals[..., :1].shape)`
# which newer JAX rejects with TypeError; the fix is `jnp.broadcast_to(1e10, ...)`.
# Adapted: the rendering function reduced to the distance computation around the reported line
# (jnp.concatenate of the deltas and the far-plane broadcast, as in JaxNeRF).
import jax.numpy as jnp


def volumetric_rendering(rgb, sigma, z_vals, dirs):
    eps = 1e-10
    dists = jnp.concatenate(
        [
            z_vals[Ellipsis, 1:] - z_vals[Ellipsis, :-1],
            jnp.broadcast_to([1e10], z_vals[Ellipsis, :1].shape),  # expect: JAX501
        ],
        -1,
    )
    dists = dists * jnp.linalg.norm(dirs[Ellipsis, None, :], axis=-1)
    alpha = 1.0 - jnp.exp(-sigma[Ellipsis, 0] * dists)
    return (alpha[Ellipsis, None] * rgb).sum(axis=-2) + eps


z_vals = jnp.linspace(2.0, 6.0, 8)[None, :].repeat(4, axis=0)
try:
    print(volumetric_rendering(jnp.ones((4, 8, 3)), jnp.ones((4, 8, 1)), z_vals, jnp.ones((4, 3))))
except TypeError as err:
    print(type(err).__name__, err)
