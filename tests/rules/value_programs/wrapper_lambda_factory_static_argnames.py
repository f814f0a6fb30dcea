# runtime: jax.errors.TracerBoolConversionError
# clean runtime: check: assert float(out) == 4.0
import jax
import jax.numpy as jnp


def jit_static(*names):
    return lambda f: jax.jit(f, static_argnames=names)


@jit_static("n")
def power(x, n):
    if n > 1:  # `n` is static: the lambda the factory returns passes `names` to jax.jit
        x = x * x
    if x.sum() > 0:  # expect: JAX701  # clean: return jnp.where(x.sum() > 0, x, -x)
        return x  # clean:
    return -x  # clean:


out = power(jnp.float32(2.0), 2)
