# Source: https://github.com/jax-ml/jax/issues/4798 ("jax.numpy.minimum returning traced value
# even if all inputs are concrete")
# n is static and x.shape[0] is a Python int, but jnp.minimum of them is a traced array under
# jit (omnistaging), so jnp.arange(n_actual) raises: the length of arange must be concrete.
# hawkinsp: expected; use Python min (or np.minimum) for shape arithmetic.
# Verbatim (try/except and the working min() version added).
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=(0,))
def foo(n, x):
    n_aval = jnp.shape(x)[0]
    n_actual = jnp.minimum(n_aval, n)
    print(type(n), type(n_aval), type(n_actual))
    return jnp.arange(n_actual)  # expect: JAX803


n = 5
x = jnp.arange(10)
try:
    foo(n, x)
except (jax.errors.ConcretizationTypeError, TypeError) as err:
    print(type(err).__name__)


@partial(jax.jit, static_argnums=(0,))
def foo_ok(n, x):
    return jnp.arange(min(jnp.shape(x)[0], n))


print(foo_ok(n, x))
