# runtime: jax.errors.TracerBoolConversionError
# clean runtime: check: assert int(f(True)) == 1 and int(g(jnp.float32(2.0))) == 1
# jax #22098: `True and q` evaluates to the traced q, so the `if` tests q; a literal that
# ends the chain (`False and q`) leaves q untested.
import jax
import jax.numpy as jnp


@jax.jit
def f(qiaoqiao):
    if True and qiaoqiao:  # expect: JAX701  # clean: if False and qiaoqiao:
        return 1  # clean: return 0
    return 0  # clean: return jnp.where(qiaoqiao, 1, 0)


@jax.jit
def g(x):
    return jnp.where(None or x > 1.0, 1, 0)


f(True)
