# Source: https://github.com/google/objax/issues/59 ("Prototype mutable tensors + question: are they desirable?")
# The objax author shows that NumPy-style in-place update of a slice works with numpy but
# fails on a jax.numpy array: `v[2:4] += 1` raises "TypeError ... JAX arrays are immutable".
# Verbatim (the two snippets); the try/except and prints are the evidence.
import jax.numpy as jn
import numpy as np

v = np.arange(10)
v[2:4] += 1
print("numpy:", v)

v = jn.arange(10)
try:
    v[2:4] += 1  # expect: JAX202
    print("jax: no error", v)
except TypeError as err:
    print("jax: TypeError:", str(err).splitlines()[0])
