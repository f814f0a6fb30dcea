# runtime: jax.errors.TracerBoolConversionError
# clean runtime: check: assert float(out.sum()) == 3.0
import equinox as eqx
import jax.numpy as jnp


def normalise(x):
    if x.sum() > 0:  # expect: JAX701  # clean: return jnp.where(x.sum() > 0, x, -x)
        return x  # clean:
    return -x  # clean:


step = eqx.filter_jit(normalise)
out = step(jnp.ones(3))
