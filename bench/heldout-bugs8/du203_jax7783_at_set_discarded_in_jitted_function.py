# Source: https://github.com/jax-ml/jax/pull/7783 ("Don't refer to deprecated jax.ops.index_update
# in error messages"), comment by lfaucheux (2022-06-04).
# After reading that `.at[].set()` is "guaranteed to be performed in-place under JIT", the
# commenter writes a jitted `f` that calls `a.at[idx].set(b)` and drops the result; `f` returns
# None, `f(...) or a` shows `a` unchanged: no -1 anywhere.
# Verbatim (the report's lines; imports and evidence added).
import jax.numpy as jnp
from jax import jit


@jit
def f(a, idx, b):
    a.at[idx].set(b)  # expect: JAX203


a = jnp.ones((3, 3))
idx = ((1, 1, 2, 2), (1, 2, 1, 2))
print(f(a, idx, -1) or a)
