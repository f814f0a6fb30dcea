# %% [1]
import jax
import jax.numpy as jnp
import numpy as np
# %% [2]
x_np = np.linspace(-2, 2, 101)
x_np[50] = 1e-9  # avoid the singularity at 0
# %% [3]
@jax.jit
def soft_coulomb(x, a=1.0):
    return -1.0 / np.sqrt(x**2 + a**2)  # expect: JAX703
# %% [4]
V = soft_coulomb(jnp.asarray(x_np))
print(V.min())
