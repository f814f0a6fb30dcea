# Source: https://github.com/jax-ml/jax/issues/10005 ("Downcasting from fp to uint formats
# diverges from numpy behavior")
# erdmann: `jnp.array(f32).astype(np.uint8)` clips (0, 0, 255, 255, 255) where NumPy wraps
# (1, 255, 0, 255, 1); the Sharp Bits page gained a "miscellaneous divergences" entry (#10092).
# Verbatim.
import numpy as np
import jax.numpy as jnp

i32 = np.array([-255, -1, 256, 255, 257], dtype=np.int32)
f32 = np.array([-255, -1, 256, 255, 257], dtype=np.float32)

print(f'                 {i32.astype(np.uint8) = }')
print(f'{jnp.array(i32).astype(np.uint8) = }')
print()
print(f'                 {f32.astype(np.uint8) = }')
print(f'{jnp.array(f32).astype(np.uint8) = }')  # expect: JAX903
