# Source: https://github.com/jax-ml/jax/issues/1333 ("jax.numpy.ones and jax.numpy.zeros always
# yield float32 dtypes"), from TensorNetwork issue #251.
# "a = jax.numpy.ones((2,2), dtype=np.float64); print(a.dtype) #float32, I would expect float64".
# Verbatim.
import jax
import numpy as np

a = jax.numpy.ones((2, 2), dtype=np.float64)  # expect: JAX901
print(a.dtype)  # float32, I would expect float64
