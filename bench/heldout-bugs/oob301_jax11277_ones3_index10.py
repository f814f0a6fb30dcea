# Source: https://github.com/jax-ml/jax/issues/11277 ("indexing an array beyond its length should
# return IndexError")
# "r = jnp.ones(3); r[10] -> DeviceArray(1., dtype=float32). Shouldn't r[10] return an
# out-of-bound IndexError instead?" Verbatim.
import jax.numpy as jnp

r = jnp.ones(3)
print("r[10] =", r[10])  # expect: JAX301
