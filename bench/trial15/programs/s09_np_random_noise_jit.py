# Langevin step with thermal noise, noise drawn the NumPy way.
import jax
import jax.numpy as jnp
import numpy as np

np.random.seed(0)


@jax.jit
def langevin_step(x, v, dt, gamma, kT):
    noise = np.random.normal(size=x.shape)  # expect: JAX601
    v = v - gamma * v * dt - x * dt + jnp.sqrt(2 * gamma * kT * dt) * noise
    return x + v * dt, v


x, v = jnp.zeros(3), jnp.zeros(3)
for _ in range(3):
    x, v = langevin_step(x, v, 0.01, 1.0, 1.0)
    print(v)
