# Source: https://github.com/jax-ml/jax/issues/6233 ("jit unable to handle DeviceArray inputs")
# LouisDesdoigts jitted `jnp.arange(-x, x)` with x static; a Python int works, but the same
# number computed with jnp (`jnp.add(4, 1)`) is a JAX array, which is not hashable:
# "ValueError: Non-hashable static arguments are not supported".
# Verbatim (print of the results and try/except added).
import jax.numpy as jnp
from jax import jit


def f(x):
    return jnp.arange(-x, x)


f_jit = jit(f, static_argnums=0)

x_int = int(5)
arange = f(x_int)
arange_jit = f_jit(x_int)
print(arange_jit)

x_device_array = jnp.add(4, 1)
arange = f(x_device_array)
try:
    arange_jit = f_jit(x_device_array)  # expect: JAX1002
except ValueError as err:
    print(type(err).__name__, str(err)[:50])
