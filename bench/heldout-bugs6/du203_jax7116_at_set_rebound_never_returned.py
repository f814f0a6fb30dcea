# Source: https://github.com/jax-ml/jax/issues/7116 ("In-place operations with Jax don't seem to work")
# ant-pls-dev benchmarked numba against jax with an "in-place" function: the jax version
# rebinds `a = a.at[i].set(...)` in a loop and returns nothing, so the caller's array never
# changes (jax sum after == before, numba's sum is updated). .at[].set returns a new array.
# Adapted (the numba half and the timing removed; the jitted function is the user's).
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def inplace_func_jax(a):
    for i in range(a.size):
        a = a.at[i].set(2 * (2 * (a[i] + 1) + 1))  # expect: JAX203


x = np.arange(100, dtype=np.int32)
x_jax = jnp.array(x.copy())
print("jax sum before:", x_jax.sum())
np.asarray(inplace_func_jax(x_jax))
print("jax sum after:", x_jax.sum())
