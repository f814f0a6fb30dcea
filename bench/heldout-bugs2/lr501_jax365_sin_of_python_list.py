# Source: https://github.com/jax-ml/jax/issues/365 ("add support for list arguments to
# jax.numpy funcs, like np.sin([0.2, 0.4])")
# hawkinsp: "We've chosen to instead ban list arguments, and at least for the example in
# this bug we correctly report an error": TypeError: sin requires ndarray or scalar
# arguments, got <class 'list'>.
# Verbatim (the REPL line); try/except added.
import jax.numpy as jnp

try:
    print(jnp.sin([0.2, 0.4]))  # expect: JAX501
except TypeError as e:
    print(type(e).__name__, str(e)[:70])
