# ok: x64 switched on right after the imports, then 64-bit dtypes requested; NumPy float64
# arrays are NumPy's business.
import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import random  # noqa: E402

A = jnp.array([[0, 1, 1], [1, 0, 1], [1, 1, 0]], dtype=jnp.float64)
x = random.uniform(random.PRNGKey(0), (10,), dtype="float64")
a = jax.numpy.ones((2, 2), dtype=np.float64)
host = np.zeros(3, dtype=np.float64)
print(A.dtype, x.dtype, a.dtype, host.dtype)
