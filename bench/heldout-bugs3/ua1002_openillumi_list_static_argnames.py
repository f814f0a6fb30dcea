# Source: https://openillumi.com/en/en-jax-jit-list-static-arg-best-practice ("jax.jit with
# static_argnames ... passing mutable types like lists"; a Stack Overflow question retold)
# The user passed a Python list of layer sizes through `static_argnames` and got "ValueError:
# Non-hashable static arguments are not supported"; the advice: pass a tuple.
# Reconstructed from the article's description.
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=["sizes"])
def split_sum(x, sizes):
    out = []
    start = 0
    for s in sizes:
        out.append(x[start:start + s].sum())
        start += s
    return jnp.stack(out)


x = jnp.arange(6.0)
try:
    print(split_sum(x, sizes=[2, 4]))  # expect: JAX1002
except ValueError as err:
    print("ValueError:", str(err)[:50])
print(split_sum(x, sizes=(2, 4)))
