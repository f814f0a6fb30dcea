# %% [1]
import time
import jax
import jax.numpy as jnp
import numpy as np
# %% [2]
@jax.jit
def coulomb_matrix(pos, Z):
    d = jnp.linalg.norm(pos[:, None] - pos[None, :], axis=-1)
    off = jnp.outer(Z, Z) / jnp.where(d == 0, 1.0, d)
    return jnp.where(jnp.eye(len(Z), dtype=bool), 0.5 * Z**2.4, off)
# %% [3]
pos = jnp.asarray(np.random.default_rng(0).normal(size=(30, 3)))
Z = jnp.full(30, 6.0)
coulomb_matrix(pos, Z).block_until_ready()
# %% [4]
t0 = time.perf_counter()
C = coulomb_matrix(pos, Z).block_until_ready()
print(f"{1e3 * (time.perf_counter() - t0):.3f} ms", C.shape)
