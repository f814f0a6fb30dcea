# Source: https://openillumi.com/en/en-jax-jit-dynamic-loop-error-fix ("JAX @jit Dynamic For Loop
# Fix: Essential Guide to TracerIntegerConversionError", retelling a Stack Overflow question)
# The user drew a random loop count with jax.random inside a jitted function and looped
# `for _ in range(n)`: range() needs a Python int and the traced count raises
# TracerIntegerConversionError. The article's fix draws the count outside and passes it as a
# static argument (or uses lax.fori_loop).
# Reconstructed from the article's description (its listing is not in our copy); names follow
# the article's wording.
from functools import partial

import jax
import jax.numpy as jnp


@jax.jit
def random_walk(key, x):
    key, subkey = jax.random.split(key)
    num_steps = jax.random.randint(subkey, (), 1, 10)
    for _ in range(num_steps):  # expect: JAX703
        x = x + 1.0
    return x


try:
    print(random_walk(jax.random.PRNGKey(0), jnp.float32(0.0)))
except jax.errors.TracerIntegerConversionError as err:
    print(type(err).__name__)


@partial(jax.jit, static_argnums=(1,))
def fixed_walk(x, num_steps):
    for _ in range(num_steps):
        x = x + 1.0
    return x


print(fixed_walk(jnp.float32(0.0), int(jax.random.randint(jax.random.PRNGKey(0), (), 1, 10))))
