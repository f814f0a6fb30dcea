# %% [1]
import jax
import jax.numpy as jnp
# %% [2]
def kepler(E, M, e):
    return E - e * jnp.sin(E) - M
# %% [3]
@jax.jit
def solve_kepler(M, e):
    E = M
    for it in range(50):
        dE = kepler(E, M, e) / (1 - e * jnp.cos(E))
        E = E - dE
        if jnp.abs(dE) < 1e-10:  # expect: JAX701
            break
    return E
# %% [4]
print(solve_kepler(1.0, 0.3))
