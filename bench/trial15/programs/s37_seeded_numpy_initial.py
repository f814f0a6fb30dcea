# Initial conditions from np.random (seeded once), then a jitted vmapped integrator.
import jax
import jax.numpy as jnp
import numpy as np

rng = np.random.default_rng(42)
x0 = rng.normal(size=(16, 2))
x0[:, 1] = 0.0  # start at rest


@jax.jit
@jax.vmap
def energy_after(y):
    def body(i, y):
        return y + 0.01 * jnp.array([y[1], -y[0]])

    y = jax.lax.fori_loop(0, 100, body, y)
    return 0.5 * jnp.sum(y**2)


print(energy_after(jnp.asarray(x0)).mean())
