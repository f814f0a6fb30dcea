# OK (no findings expected): x64 enabled right after the imports, before any array, so
# float64 requests to jax.random and jax.numpy are honoured (counterpart of
# f901_jax17366); NumPy float64 arrays are NumPy's business.
import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import random  # noqa: E402

u = random.uniform(random.PRNGKey(0), (3,), dtype=jnp.float64)
z = jnp.zeros(2, dtype=jnp.float64)
host = np.linspace(0.0, 1.0, 5, dtype=np.float64)
print(u.dtype, z.dtype, host.dtype, jnp.asarray(host).dtype)
