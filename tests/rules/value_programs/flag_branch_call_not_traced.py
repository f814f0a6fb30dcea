# runtime: jax.errors.TracerArrayConversionError
# clean runtime: check: assert float(plan(jnp.ones(3)).sum()) == 6.0
# jaxns race_tree.build_block_state: the NumPy validation runs only under `if validate:`, and
# the traced caller leaves `validate` at its default False: the helper called in that branch
# is not traced through it, and its `np.asarray` never meets the tracers it would make.
import jax
import jax.numpy as jnp
import numpy as np


def validate_state(x):
    values = np.asarray(x)  # expect: JAX703
    if np.any(values < 0):
        raise ValueError("a negative entry")


def build_python(x):
    state = jnp.asarray(x) + 1
    validate_state(state)
    return state


def build(x, *, validate=False):
    if validate:
        return build_python(x)
    return jnp.asarray(x) + 1


@jax.jit
def plan(x):
    return build(x, validate=True)  # clean: return build(x)


print(build(np.ones(3), validate=True))  # eager: the validation runs on values
plan(jnp.ones(3))
