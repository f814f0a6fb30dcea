# Source: https://github.com/jax-ml/jax/issues/1013 (""data type not understood" when passing
# Python lists to Numpy functions")
# SiegeLordEx: `onp.concatenate([[], [1]], 0)` works in NumPy, `np.concatenate([[], [1]], 0)`
# with jax.numpy failed ("data type not understood"). Today jax.numpy rejects the list
# elements: "TypeError: concatenate requires ndarray or scalar arguments, got <class 'list'>".
# Verbatim (try/except added).
import jax.numpy as np
import numpy as onp

print("numpy", onp.concatenate([[], [1]], 0))
try:
    print("jax", np.concatenate([[], [1]], 0))  # expect: JAX501
except TypeError as err:
    print(type(err).__name__, err)
