# runtime: check: assert int(last) == 9 and float(peak) == 4.0  # clamped, no IndexError
# clean runtime: check: assert int(last) == 9 and float(peak) == 4.0
# jax #278: an array placed on a device (or cut from the gradient) keeps its shape, so a
# constant index past its end is still out of bounds; JAX clamps it silently.
import jax
import jax.numpy as jnp

x = jnp.arange(10)
x = jax.device_put(x)
last = x[13]  # expect: JAX301  # clean: last = x[9]
scores = jax.lax.stop_gradient(jnp.linspace(0.0, 4.0, 5))
peak = scores[5]  # expect: JAX301  # clean: peak = scores[4]
