# Early reset inside a scan: a Python if on the carry.
import jax
import jax.numpy as jnp


def body(carry, x):
    total = carry + x
    if total > 10:  # expect: JAX701
        total = 0.0
    return total, total


xs = jnp.arange(8.0)
_, ys = jax.lax.scan(body, 0.0, xs)
print(ys)
