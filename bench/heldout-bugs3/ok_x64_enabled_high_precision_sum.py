# ok: x64 is enabled right after the imports, before any array exists; int casts of ints.
import jax
import jax.numpy as jnp
from jax import random

jax.config.update("jax_enable_x64", True)


def high_precision_sum(X, axis=None, keepdims=False):
    return jnp.array(jnp.sum(X, axis=axis, dtype=jnp.float64, keepdims=keepdims), dtype=X.dtype)


values = random.normal(random.PRNGKey(0), [10000], dtype=jnp.float32)
values = jnp.stack([values, -values]).reshape(-1)
counts = jnp.arange(300) % 256
print(high_precision_sum(values), jnp.sum(values, dtype=jnp.float64).dtype)
print(counts.astype(jnp.uint8)[-3:], jnp.max(jnp.array([1, 2])), jnp.exp(jnp.array([[1.0], [2.0]])))
