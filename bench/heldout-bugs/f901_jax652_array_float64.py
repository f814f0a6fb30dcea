# Source: https://github.com/jax-ml/jax/issues/652 ("controlling float precision?")
# "I am losing some precision with float32 and 64 conversions ... it seems like I lose precision
# out of the gate": `np.array(..., dtype=np.float64)` prints float32 (today with a UserWarning
# that the dtype is truncated). Verbatim (first cell).
import jax.numpy as np

A = np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0]], dtype=np.float64)  # expect: JAX901

print(A.dtype)
