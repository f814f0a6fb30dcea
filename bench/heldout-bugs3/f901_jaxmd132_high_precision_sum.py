# Source: https://github.com/jax-md/jax-md/issues/132 ("high_precision_sum is not high precision")
# jax_md.util.high_precision_sum summed in float64 to avoid cancellation, but without
# jax_enable_x64 the float64 request is truncated to float32 and "The high_precision_sum and
# regular sum give the same answer" (gecrooks). sschoenholz: should at least warn.
# Adapted: high_precision_sum as in jax_md/util.py of that time; the user's script around it.
import jax.numpy as jnp
from jax import random


def high_precision_sum(X, axis=None, keepdims=False):
  """Sums over axes at 64-bit precision then casts back to original dtype."""
  return jnp.array(
      jnp.sum(X, axis=axis, dtype=jnp.float64, keepdims=keepdims), dtype=X.dtype)  # expect: JAX901


key = random.PRNGKey(0)
key, pos_key = random.split(key)

values = random.normal(pos_key, [10000])
values = jnp.stack([values, -values]).reshape(-1)

print("exact sum: 0.0")
print("regular sum", jnp.sum(values))
print("high_precision_sum", high_precision_sum(values))
