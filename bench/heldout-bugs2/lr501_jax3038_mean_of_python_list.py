# Source: https://github.com/jax-ml/jax/issues/3038 ("`jax.numpy.sum` and
# `jax.numpy.mean` inconsistency on python lists")
# "This works: ... jnp.sum(x) ... But this doesn't: ... jnp.mean(x)" with x a Python
# list of scalar arrays; jakevdp: "Generally jax does not automatically upgrade lists to
# device arrays ... you can get the expected behavior by always passing a jax array".
# Today both raise TypeError.
# Verbatim; try/except added.
import jax.numpy as jnp

x = [jnp.ones((), dtype=jnp.float32), jnp.ones((), dtype=jnp.float32)]
try:
    print(jnp.mean(x))  # expect: JAX501
except TypeError as e:
    print(type(e).__name__, str(e)[:70])
