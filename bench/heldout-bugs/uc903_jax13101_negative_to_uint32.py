# Source: https://github.com/jax-ml/jax/issues/13101 ("Inconsistency with numpy on `astype` from
# float to uint32")
# numpy wraps negative floats cast to uint32 (4294967276, ...); jax gives [0, 0, 0, 0, 10]
# (saturation). Maintainer: expected, "XLA and numpy make different choices".
# Verbatim (both lines of the report).
import jax.numpy as jnp
import numpy as np

print("numpy:", np.array([-20, -25, -23, -12, 10], dtype=np.float32).astype(np.uint32))
print("jax:  ", jnp.array([-20, -25, -23, -12, 10], dtype=jnp.float32).astype(jnp.uint32))  # expect: JAX903
