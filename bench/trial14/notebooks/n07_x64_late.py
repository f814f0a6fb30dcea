# %% [1]
import jax
import jax.numpy as jnp
# %% [2]
t = jnp.linspace(0, 1, 1000)
dt = t[1] - t[0]
# %% [3]
jax.config.update("jax_enable_x64", True)  # expect: JAX902
# %% [4]
y = jnp.cumsum(jnp.exp(-t) * dt)
print(t.dtype, y.dtype, y[-1])
