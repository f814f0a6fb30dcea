# runtime: jax.errors.TracerBoolConversionError
# clean runtime: check: assert float(out) == 2.0
import jax
import jax.numpy as jnp


def my_jit(f):
    return jax.jit(f)


@my_jit
def step(x):
    if x > 0:  # expect: JAX701  # clean: return jnp.where(x > 0, x * 2.0, -x)
        return x * 2.0  # clean:
    return -x  # clean:


out = step(jnp.float32(1.0))
