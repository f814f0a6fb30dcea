# ok: indices inside static shapes, last-row access with -1, fill-mode gather for a possibly
# out-of-range index, clipping before a float-to-unsigned cast, int casts of integer data.
import jax.numpy as jnp
import jax.random as random

a = random.normal(random.PRNGKey(2020), (10, 10))
last = a[9, :]
also_last = a[-1, :]
r = jnp.ones(3)
safe = r.at[10].get(mode="fill", fill_value=jnp.nan)
vals = jnp.array([-20, -25, -23, -12, 10], dtype=jnp.float32)
as_uint = jnp.clip(vals, 0, None).astype(jnp.uint32)
idx = jnp.arange(4).astype(jnp.int32)
print(bool(jnp.all(last == also_last)), r[2], safe, as_uint.tolist(), idx.tolist())
