# Source: https://github.com/google-research/google-research/issues/964 ("Dream fields colab
# notebook jax 32 bit / 64 bit warning")
# Running the Dream Fields colab prints "UserWarning: Explicitly requested dtype <class
# 'jax._src.numpy.lax_numpy.float64'> requested in zeros is not available, and will be truncated
# to dtype float32": the notebook asks jax for float64 arrays while x64 is not enabled.
# Reconstructed (the report gave the warning from `zeros`; the cell builds a camera ray grid).
import warnings

import jax.numpy as jnp
import numpy as np

height, width, focal = 4, 6, 1.2
i, j = np.meshgrid(np.arange(width), np.arange(height), indexing="xy")
directions = np.stack([(i - width / 2) / focal, -(j - height / 2) / focal, -np.ones_like(i)], -1)

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    origins = jnp.zeros((height, width, 3), dtype=jnp.float64)  # expect: JAX901
print(origins.dtype, [str(w.message)[:40] for w in caught])
rays = jnp.concatenate([origins, jnp.asarray(directions)], -1)
print(rays.dtype)
