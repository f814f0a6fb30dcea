# x64 enabled at the top; correct.
import jax

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp

x = jnp.linspace(0, 1, 5, dtype=jnp.float64)
print(x.dtype, jnp.sum(x))
