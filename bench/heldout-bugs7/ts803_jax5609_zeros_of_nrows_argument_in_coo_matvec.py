# Source: https://github.com/jax-ml/jax/issues/5609 ("Function with `static_argnums` as `jit`ed function argument.")
# jackd's sparse COO matrix-vector product allocates its output with the number of rows,
# passed as an argument; jitting it fails because the size is a tracer (his workaround
# passes a dummy vector of length nrows and reads `sized.size`).
# Adapted (the matvec of the report, first with nrows as a plain argument).
import jax
import jax.numpy as jnp


@jax.jit
def coo_matvec(data, row, col, nrows, v):
    dv = data * v[col]
    return jnp.zeros(nrows, dtype=dv.dtype).at[row].add(dv)  # expect: JAX803


data = jnp.array([1.0, 2.0, 3.0])
row, col = jnp.array([0, 1, 2]), jnp.array([2, 1, 0])
try:
    print(coo_matvec(data, row, col, 3, jnp.ones(3)))
except TypeError as err:  # shapes must be concrete
    print(type(err).__name__)
print(jax.jit(coo_matvec.__wrapped__, static_argnums=3)(data, row, col, 3, jnp.ones(3)))
