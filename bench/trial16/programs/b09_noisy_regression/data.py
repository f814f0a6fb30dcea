import jax
import jax.numpy as jnp


def sample_inputs(key, n, dim):
    return jax.random.uniform(key, (n, dim), minval=-1.0, maxval=1.0)


def make_dataset(key, n=256, dim=2, noise=0.1):
    w_true = jnp.arange(1, dim + 1, dtype=jnp.float32)
    x = sample_inputs(key, n, dim)
    eps = noise * jax.random.normal(key, (n,))  # expect: JAX602
    return x, x @ w_true + eps
