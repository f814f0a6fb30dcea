# Source: https://github.com/jax-ml/jax/issues/278 ("jax.numpy array indexing different
# from numpy")
# `x = np.arange(10); x = jax.device_put(x); print(x[[13]])` printed a value instead of
# raising IndexError like NumPy; mattjj answered that out-of-bounds indices are not
# checked for fancy and dynamic indexing and contrasted the scalar form `x[13]`.
# Adapted: today's JAX rejects the list index `x[[13]]` outright (TypeError: non-tuple
# sequence for indexing), so the thread's scalar form `x[13]` is used; it now clamps
# silently and prints 9.
import jax
import jax.numpy as np

x = np.arange(10)
x = jax.device_put(x)
print(x[13])  # expect: JAX301
