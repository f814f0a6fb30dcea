import jax
import jax.numpy as jnp

from rl import collect, init_buffer

buf = collect(init_buffer(16, 3), jax.random.PRNGKey(0), 10, 3)
print("items pushed:", int(buf.idx), "nonzero rows:", int((jnp.abs(buf.data).sum(1) > 0).sum()))
