# runtime: jax.errors.TracerArrayConversionError
# clean runtime: check: assert float(out) == 3.0
import jax
import jax.numpy as jnp
import numpy as np

NAMES = ["a", "b", "c"]


def stacked(params):
    return np.stack([params[name] for name in NAMES])  # expect: JAX703  # clean: return jnp.stack([params[name] for name in NAMES])


@jax.jit
def total(theta):
    params = {name: theta[i] for i, name in enumerate(NAMES)}
    return stacked(params).sum()


out = total(jnp.ones(3))
