import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402

x = jnp.arange(5, dtype=jnp.float64)
print(x.dtype, jnp.sum(x * x))
