# ok: NumPy sorting and stacking on host data prepared before tracing; inside the traced
# functions the same steps use jax.numpy (jnp.lexsort, jnp.stack, a jnp cosmology).
import jax
import jax.numpy as jnp
import numpy as np

MODES = np.array([[0, 1, 0], [1, 0, 1], [0, 0, 1], [1, 1, 0]])
ORDER = np.lexsort((MODES[:, 1], MODES[:, 0], MODES[:, 2]))


@jax.jit
def compute_scaled_error(x, modes):
    sorted_modes = modes[jnp.lexsort((modes[:, 1], modes[:, 0], modes[:, 2]))]
    return jnp.sum((x * sorted_modes[:, 0]) ** 2)


print(compute_scaled_error(jnp.ones(4), jnp.asarray(MODES)), MODES[ORDER][0])


@jax.jit
def observation(pos, rot):
    return jnp.stack([pos, rot / jnp.linalg.norm(rot)])


print(observation(jnp.zeros(3), jnp.array([2.0, 0.0, 0.0])).shape)

Z_GRID = np.linspace(0.0, 2.0, 64)


class FlatLambdaCDM:
    def __init__(self, H0, Om0):
        self.H0 = jnp.asarray(H0)
        self.Om0 = Om0

    def comoving_distance(self, z):
        ez = jnp.sqrt(self.Om0 * (1 + Z_GRID) ** 3 + (1 - self.Om0))
        return jnp.interp(z, Z_GRID, 299792.458 / self.H0 * jnp.cumsum(1 / ez) * Z_GRID[1])


@jax.jit
def log_likelihood(parameters, z):
    return jnp.sum(jnp.log(FlatLambdaCDM(parameters["H0"], 0.31).comoving_distance(z) + 1e-6))


print(log_likelihood({"H0": 67.7}, jnp.linspace(0.1, 1.5, 10)))
