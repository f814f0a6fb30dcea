# Need double precision for this gradient check.
import jax
import jax.numpy as jnp


def f(x):
    return jnp.sum(jnp.sin(x) ** 2)


x = jnp.linspace(0.0, 1.0, 5, dtype=jnp.float64)  # expect: JAX901
eps = 1e-6
fd = (f(x + eps) - f(x - eps)) / (2 * eps)
print(x.dtype, fd, jax.grad(f)(x).sum())
