# %% [1]
import jax
import jax.numpy as jnp
import numpy as np
# %% [2]
r = jnp.linspace(0.5, 3.0, 1000)
V = 4 * (r**-12 - r**-6)
# %% md
The minimum looks off at single precision: turn on float64.
# %% [3]
jax.config.update("jax_enable_x64", True)  # expect: JAX902
# %% [4]
i = jnp.argmin(V)
print(r.dtype, r[i], 2 ** (1 / 6))
