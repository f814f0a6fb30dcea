# ok: 64-bit mode switched on right after the imports, before any array is made, so the
# float64 requests of a tensor backend are honoured; NumPy float64 stays NumPy.
import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

a = jnp.ones((2, 2), dtype=np.float64)
print(a.dtype)
print(np.random.default_rng(0).random((2, 3)).dtype)
print(jnp.asarray(np.arange(3.0), dtype=jnp.float64).dtype)
