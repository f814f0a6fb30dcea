# Source: https://github.com/jax-ml/jax/issues/5280 ("Why is `jnp.nonzero` not jittable?")
# "I'm trying to use `jnp.nonzero(a)` inside a jitted function ... apparently
# `jnp.nonzero` always throws an error." jakevdp's reply uses
# `a[jnp.nonzero(a)].prod()` as the non-jittable function and
# `jnp.where(a != 0, a, 1).prod()` as the fix.
# Verbatim from the thread (jakevdp's f); jit call and try/except added.
import jax
import jax.numpy as jnp


def f(a):
    return a[jnp.nonzero(a)].prod()  # expect: JAX802


def f_fixed(a):
    return jnp.where(a != 0, a, 1).prod()


a = jnp.array([0, 1, 2, 3])
print(f(a), jax.jit(f_fixed)(a))
try:
    print(jax.jit(f)(a))
except Exception as e:
    print(type(e).__name__)
