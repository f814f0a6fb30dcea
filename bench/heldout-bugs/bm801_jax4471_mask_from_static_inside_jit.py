# Source: https://github.com/jax-ml/jax/issues/4471 ("Change in behavior of boolean masks inside
# jitted functions in jax 0.2.0")
# "Using a boolean mask that is generated inside a jitted function (but only depends on static
# arguments) stops working"; traceback: `return x[mask].sum()` in
# create_mask_inside_jitted_function, "Array boolean indices must be concrete". With
# omnistaging the jnp-built mask is traced even though its inputs are static.
# Reconstructed from the traceback (function names and the failing line are the user's).
from functools import partial

import jax
import jax.numpy as jnp


def create_mask_inside_jitted_function(x, y):
    mask = jnp.arange(x.shape[0]) < y
    return x[mask].sum()  # expect: JAX801


wont_work = jax.jit(create_mask_inside_jitted_function, static_argnums=1)

x = jnp.arange(6.0)
y = 3
print("eager:", create_mask_inside_jitted_function(x, y))
try:
    print("jit:", wont_work(x, y))
except Exception as err:
    print(type(err).__name__, str(err).splitlines()[0])
