# Double precision done right: x64 turned on before anything else.
import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402

energies = jnp.array([1.0000001, 1.0000002, 1.0000003], dtype=jnp.float64)
print(energies.dtype, jnp.diff(energies))
