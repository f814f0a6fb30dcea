# Source: https://github.com/jax-ml/jax/issues/3774 ("jnp.take uses clipped indexes whereas
# np.take does not")
# dbieber: `x.take([4], axis=0)` on a 3x3 array raises IndexError in NumPy but returns the last
# row in JAX; "The jax.numpy behavior silently masked a bug for me. My vocab_size for some
# embeddings was too small". jakevdp: known behaviour (out-of-bounds indexing).
# Adapted: the index list is wrapped in jnp.array (today's jax.numpy rejects a Python list
# index in take with a TypeError); prints added. Today take's default mode fills the
# out-of-range row (INT_MIN for ints) instead of clamping: still no error.
import jax.numpy as jnp
import numpy as np

x = jnp.array(
  [[1,2,3],
   [4,5,6],
   [7,8,9]])
print(x.take(jnp.array([4]), axis=0))  # expect: JAX301

try:
    np.asarray(x).take([4], axis=0)
except IndexError as err:
    print("numpy:", err)
