# Timing my jitted matrix exponential against SciPy (no block_until_ready: async dispatch).
import time

import jax
import jax.numpy as jnp
import numpy as np
import scipy.linalg

H = np.random.default_rng(0).normal(size=(200, 200))
H = (H + H.T) / 2


@jax.jit
def propagator(h, t):
    return jax.scipy.linalg.expm(-1j * t * h)


Hj = jnp.asarray(H)
propagator(Hj, 0.1)  # compile
start = time.perf_counter()
U = propagator(Hj, 0.1)
jax_time = time.perf_counter() - start
start = time.perf_counter()
U_ref = scipy.linalg.expm(-1j * 0.1 * H)
scipy_time = time.perf_counter() - start
print(f"jax {jax_time:.4f}s scipy {scipy_time:.4f}s", np.abs(np.asarray(U) - U_ref).max() < 1e-3)
