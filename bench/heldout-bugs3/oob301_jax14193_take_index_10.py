# Source: https://github.com/jax-ml/jax/issues/14193 ("jax.numpy.take returns large negative
# number when given out of range index")
# `jnp.take(arr, 10)` on a length-5 array returned -2147483648 instead of an error; jakevdp:
# expected behaviour, out-of-bound indices do not raise (the int "NaN" stand-in is returned).
# Verbatim.
import jax.numpy as jnp
arr = jnp.arange(5)
print(jnp.take(arr, 10)) # -2147483648  # expect: JAX301
