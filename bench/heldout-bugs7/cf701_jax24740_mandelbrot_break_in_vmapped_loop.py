# Source: https://github.com/jax-ml/jax/issues/24740 ("TracerBoolConversionError")
# A Mandelbrot escape-time count written as a Python for-loop that returns as soon as
# `abs(z) > 2`; vectorised over a grid of points with vmap (and jit) it raises
# TracerBoolConversionError. The maintainers: lax.cond cannot break out of a Python loop;
# use lax.scan / while_loop with the escape test as data.
# Reconstructed (the reporter's loop and its early return; a small grid of points).
import jax
import jax.numpy as jnp


def mandel_brot(c, max_iter):
    z = 0.0 + 0.0j
    for i in range(1, max_iter + 1):
        z = z * z + c
        if jnp.abs(z) > 2.0:  # expect: JAX701
            return i
    return max_iter


grid = jnp.linspace(-2.0, 0.5, 5) + 0.3j
print(mandel_brot(complex(grid[0]), 50))
try:
    print(jax.jit(jax.vmap(lambda c: mandel_brot(c, 50)))(grid))
except jax.errors.TracerBoolConversionError as err:
    print(type(err).__name__)
