# %% [1]
import jax
import jax.numpy as jnp
# %% [2]
@jax.jit
def morse(r, D=1.0, a=1.0, r0=1.0):
    return D * (1 - jnp.exp(-a * (r - r0))) ** 2
# %% [3]
r = jnp.linspace(0.5, 4.0, 8)
print(morse(r))
# %% [4]
@jax.jit
def morse(r, D=2.0, a=1.5, r0=1.2):
    return D * (1 - jnp.exp(-a * (r - r0))) ** 2
# %% [5]
print(morse(r), jax.grad(morse)(1.2))
