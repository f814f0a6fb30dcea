# OK (no findings expected): optional arguments resolved with `is None` tests, `or` on
# Python values and static flags inside jit (counterpart of cf702_jax16430); jnp.where /
# lax.cond for value-dependent choices.
from functools import partial

import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def scale_logits(logits, temperature=None):
    t = 1.0 if temperature is None else temperature
    return logits / t


@partial(jax.jit, static_argnames=("name", "greedy"))
def pick(logits, key, name=None, greedy=False):
    label = name or "default"
    if greedy or label == "argmax":
        return jnp.argmax(logits)
    return jax.random.categorical(key, logits)


@jax.jit
def safe_log(x):
    y = jnp.where(x > 0, x, 1.0)
    return lax.cond(jnp.all(x > 0), jnp.log, lambda v: jnp.zeros_like(v), y)


print(scale_logits(jnp.ones(3)), scale_logits(jnp.ones(3), jnp.float32(0.5)))
print(pick(jnp.arange(4.0), jax.random.PRNGKey(0), greedy=True))
print(safe_log(jnp.array([1.0, 2.0])))
