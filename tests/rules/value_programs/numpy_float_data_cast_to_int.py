# runtime: check: assert as_bytes.tolist() == [0, 0, 255, 255, 255] and codes.tolist() == [0, 0, 1]
# clean runtime: check: assert as_bytes.tolist() == [1, 255, 0, 255, 1] and codes.tolist() == [0, 0, 1]
# jax #10005: NumPy float data handed to JAX keeps its float dtype, so casting it to an integer
# dtype saturates in JAX where NumPy wraps; samplers and float scalar types give floats too.
import jax.numpy as jnp
import numpy as np

f32 = np.array([-255, -1, 256, 255, 257], dtype=np.float32)
i32 = np.array([-255, -1, 256, 255, 257], dtype=np.int32)
as_bytes = jnp.array(f32).astype(np.uint8)  # expect: JAX903  # clean: as_bytes = jnp.array(i32).astype(np.uint8)
noise = jnp.asarray(np.random.randn(3) * 0.0, dtype=jnp.int32)  # expect: JAX903  # clean: noise = jnp.asarray(np.arange(3) * 0, dtype=jnp.int32)
codes = jnp.float32(np.array([0, 1, 2]) / 2).astype(jnp.int32)  # expect: JAX903  # clean: codes = jnp.array([0, 0, 1])
