# runtime: jax.errors.TracerBoolConversionError
# clean runtime: check: assert float(out) == 8.0
import jax
import jax.numpy as jnp


def compile_step(f, **options):
    return jax.jit(f, **options)


def scale(x, factor, clip):
    if clip:  # static: passed through **options
        x = jnp.minimum(x, 10.0)
    if x > factor:  # expect: JAX701  # clean: return jnp.where(x > factor, x * factor, x)
        return x * factor  # clean:
    return x  # clean:


fast = compile_step(scale, static_argnames=("clip",))
out = fast(jnp.float32(4.0), 2.0, True)
