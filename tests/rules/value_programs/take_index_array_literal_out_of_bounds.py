# runtime: check: assert int(rows[0, 0]) == int(jnp.iinfo(jnp.int32).min)
# clean runtime: check: assert rows.tolist() == [[7, 8, 9]] and mixed.tolist() == [[2, 1], [5, 4], [8, 7]]
# jax #3774: `take` of row 4 of a 3x3 embedding table gives no error (NumPy raises): the index
# array is built from literals (`jnp.array([4])`), so its values are known.
import jax.numpy as jnp
import numpy as np

x = jnp.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
rows = x.take(jnp.array([4]), axis=0)  # expect: JAX301  # clean: rows = x.take(jnp.array([2]), axis=0)
mixed = jnp.take(x, np.array([1, -3]), axis=1)
print(rows, mixed)
