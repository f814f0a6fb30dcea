# ok: x64 is enabled right after the imports, so the float64 arrays asked of jax are float64;
# NumPy float64 stays on the host.
import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

height, width, focal = 4, 6, 1.2
i, j = np.meshgrid(np.arange(width), np.arange(height), indexing="xy")
directions = np.stack([(i - width / 2) / focal, -(j - height / 2) / focal, -np.ones_like(i)], -1)
origins = jnp.zeros((height, width, 3), dtype=jnp.float64)
rays = jnp.concatenate([origins, jnp.asarray(directions, dtype=jnp.float64)], -1)
print(origins.dtype, rays.dtype, directions.dtype)
