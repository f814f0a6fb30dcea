# Source: https://github.com/jax-ml/jax/issues/1363 ("data type not understood on simple
# expression `np.exp([[[1.], [2.]]])`")
# brianwa84 called jax.numpy's exp on a nested Python list; JAX now rejects list inputs with
# "exp requires ndarray or scalar arguments".
# Verbatim (jax.numpy imported as np, as in the report).
import jax.numpy as np

try:
    print(np.exp([[[1.], [2.]]]))  # expect: JAX501
except TypeError as err:
    print("TypeError:", err)
