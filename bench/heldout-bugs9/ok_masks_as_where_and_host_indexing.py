# ok: under jit the mask selects with jnp.where (fixed shape); the boolean index runs eagerly on a
# concrete array, and on a NumPy array inside a jitted function's host-side setup.
import jax
import jax.numpy as jnp
import numpy as np

zero_small = jax.jit(lambda x: jnp.where(x >= 3, x, 0))
sum_large = jax.jit(lambda x: jnp.where(x >= 3, x, 0).sum())

x = jnp.array([1, 2, 3, 4, 5, 6])
print(zero_small(x), sum_large(x))
print(x[x >= 3])

table = np.arange(6)
print(table[table % 2 == 0])
