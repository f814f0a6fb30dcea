# Source: https://github.com/tinygrad/tinygrad/pull/6305 ("Fix uint8 cast underflow")
# While matching NumPy's float -> uint8 casts, the author checked what JAX does: it clamps
# (saturates) instead of wrapping, e.g. -1.0 -> 0 and 256.0 -> 255, where NumPy gives 255 and
# 0. Code ported from NumPy that relies on wrap-around silently gets other bytes.
# Verbatim (the jnp line from the PR thread; the NumPy comparison added).
import jax.numpy as jnp
import numpy as np

values = [-1.0, -266.0, 256, 259999.0, 3.0, 4.0]
out = jnp.array(values, dtype=jnp.float32).astype("uint8")  # expect: JAX903
print("jax  ", out)
with np.errstate(invalid="ignore"):
    print("numpy", np.array(values, dtype=np.float32).astype("uint8"))
