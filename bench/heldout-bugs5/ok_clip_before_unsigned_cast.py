# ok: float values are rounded and clipped into range before the unsigned cast; NumPy casts its
# own arrays.
import jax.numpy as jnp
import numpy as np

values = jnp.array([-1.0, 266.0, 3.4, 254.6])
pixels = jnp.clip(jnp.round(values), 0, 255).astype("uint8")
print(pixels)
print(np.array([1.0, 2.0]).astype("uint8"))
print(jnp.arange(4).astype("uint8"))
