# Source: https://github.com/jax-ml/jax/issues/2009 ("Proposal for PRNG key replacement.")
# "Almost every single new use (including myself!) will incorrectly reuse the PRNG key in
# this way ... Causing `a` and `b` to be the exact same values, which is very unlikely to
# be what a new user wants." No error: two draws from one key are identical.
# Verbatim: the three lines of the report; the evidence print is added.
import jax
import jax.numpy as jnp

key = jax.random.PRNGKey(0)
a = jax.random.uniform(key, (10, 10))
b = jax.random.uniform(key, (10, 10))  # expect: JAX602

print("a and b identical:", bool(jnp.all(a == b)))
