# ok: the fori_loop body applies its mask with jnp.where instead of boolean indexing, and a
# boolean mask indexes a concrete array outside any trace.
import jax
import jax.numpy as jnp
from jax import random


def body(idx, val):
    alpha, i, key = val
    key, consume = random.split(key)
    noise = random.uniform(consume, alpha.shape, maxval=0.1)
    mask = (i - 1) == idx
    alpha = jnp.where(mask, alpha + noise, alpha)
    return alpha, i, key


alpha = jnp.linspace(0.0, 1.0, 8)
i = jnp.array([1, 1, 2, 2, 3, 3, 4, 4])
out, _, _ = jax.lax.fori_loop(0, 4, body, (alpha, i, random.PRNGKey(0)))
print(out)
print(out[out > 0.5])
