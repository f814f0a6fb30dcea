# ok: masked arrays and NumPy stay on the host (loading and masking the data); the vmapped
# correction works on jax arrays with `jnp.where` for the mask.
import jax
import jax.numpy as jnp
import numpy as np

raw = np.ma.masked_invalid(np.array([[1.0, np.nan], [2.0, 3.0]]))
u_host = raw.filled(0.0)
mask_host = np.ma.getmaskarray(raw)


def cyclogeostrophy(u_geos, v_geos, mask, coriolis):
    u = jnp.where(mask, 0.0, u_geos)
    v = jnp.where(mask, 0.0, v_geos)
    du = jnp.gradient(u, axis=0)
    dv = jnp.gradient(v, axis=1)
    return u - (u * dv) / coriolis, v + (v * du) / coriolis


u_t = jnp.stack([jnp.asarray(u_host)] * 3)
out = jax.vmap(cyclogeostrophy, in_axes=(0, 0, None, None))(u_t, u_t, jnp.asarray(mask_host), 1e-4)
print(out[0].shape, np.asarray(out[0]).dtype)
