# Source: https://github.com/IGE-OPERA/jaxparrow/issues/42 ("`jax.vmap`")
# vadmbertr: "The `cyclogeostrophy` function should be `vmap`able. Currently, some `numpy`
# artifacts prevent it: `np.ma.masked_array` should not be allowed". Mapped over time steps, the
# velocities are BatchTracers and the masked array converts them: TracerArrayConversionError.
# Reconstructed (jaxparrow's iteration reduced to one gradient-wind correction step).
import jax
import jax.numpy as jnp
import numpy as np


def cyclogeostrophy(u_geos, v_geos, mask, coriolis):
    u_geos = np.ma.masked_array(u_geos, mask)  # expect: JAX703
    v_geos = np.ma.masked_array(v_geos, mask)
    du = jnp.gradient(jnp.asarray(u_geos.filled(0.0)), axis=0)
    dv = jnp.gradient(jnp.asarray(v_geos.filled(0.0)), axis=1)
    u = jnp.asarray(u_geos.filled(jnp.nan))
    v = jnp.asarray(v_geos.filled(jnp.nan))
    return u - (u * dv) / coriolis, v + (v * du) / coriolis


mask = np.zeros((4, 4), dtype=bool)
u_t, v_t = np.ones((3, 4, 4)), np.ones((3, 4, 4))
print(cyclogeostrophy(u_t[0], v_t[0], mask, 1e-4)[0].shape)
try:
    print(jax.vmap(cyclogeostrophy, in_axes=(0, 0, None, None))(u_t, v_t, mask, 1e-4)[0].shape)
except jax.errors.TracerArrayConversionError as err:
    print(type(err).__name__)
