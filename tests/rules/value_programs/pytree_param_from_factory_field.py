# runtime: jax.errors.TracerBoolConversionError
# clean runtime: check: assert float(out.sum()) == 6.0
from dataclasses import dataclass

import jax
import jax.numpy as jnp


@jax.tree_util.register_dataclass
@dataclass
class Params:
    w: jax.Array
    b: jax.Array


def make_params():
    return Params(jnp.ones(3), jnp.array(1.0))


@jax.jit
def apply(p, x):  # the class of `p` is not known here: its fields are leaves, so tracers
    if p.b > 0:  # expect: JAX701  # clean: x = jnp.where(p.b > 0, x + p.b, x)
        x = x + p.b  # clean:
    return x * p.w


out = apply(make_params(), jnp.ones(3))
