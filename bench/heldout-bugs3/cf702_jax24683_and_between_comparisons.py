# Source: https://github.com/jax-ml/jax/issues/24683 ("Bit and Boolean operands")
# f2 used `(x > a) and (x <= b)` as a lax.cond predicate under jit and got
# TracerBoolConversionError; f3 with `&` works. The user asked why `and` is not supported.
# Verbatim (f2 and f3; f1's chained comparison is the same failure).
import jax
import jax.numpy as jnp


@jax.jit
def f2(x, a, b):
    return jax.lax.cond((x > a) and (x <= b),  # expect: JAX702
                        lambda _: 666,
                        lambda _: 999,
                        None)


@jax.jit
def f3(x, a, b):
    return jax.lax.cond((x > a) & (x <= b),
                        lambda _: 666,
                        lambda _: 999,
                        None)


x, a, b = jnp.array(1.), 2., 3.
print(f3(x, a, b))
try:
    print(f2(x, a, b))
except jax.errors.TracerBoolConversionError as err:
    print(type(err).__name__)
