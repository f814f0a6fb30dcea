# Source: https://github.com/jax-ml/jax/issues/21994 ("Add support for boolean mask
# indices inside jit")
# "jax always complains when you use `.at[...]` with boolean masks inside of `jax.jit`":
# `x.at[x < 5].set(0)` raises NonConcreteBooleanIndexError under jit, while the
# jnp.where version works.
# Verbatim from the issue (the first example); try/except added.
import jax
import jax.numpy as jnp


def f(x):
    return x.at[x < 5].set(0)  # expect: JAX801


def g(x):
    return jnp.where(x < 5, 0, x)


x = jnp.arange(10)
assert jnp.array_equal(f(x), g(x))  # type: ignore

print(jax.jit(g)(x))  # no error
try:
    print(jax.jit(f)(x))  # error
except Exception as e:
    print(type(e).__name__)
