# %% [1]
import jax.numpy as jnp
import numpy as np
# %% [2]
L, N = 1.0, 50
x = jnp.linspace(0, L, N)
rho = jnp.zeros(N)
# %% [3]
for i in range(N):
    if 0.4 < x[i] < 0.6:
        rho[i] = 1.0  # expect: JAX201
# %% [4]
print(rho.sum())
