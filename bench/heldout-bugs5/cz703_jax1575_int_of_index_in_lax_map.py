# Source: https://github.com/jax-ml/jax/issues/1575 ("'argnums' in grad, jacfwd, and jacrev only
# accepts literal Python integers")
# adabbott picked the argnums of grad from an index array inside a lax.map body with
# int(grad_indices[i]); i is traced by lax.map, so int() of it fails (today:
# ConcretizationTypeError). argnums must be a Python int known at trace time.
# Verbatim (try/except added; np is jax.numpy as in the report).
import jax
import jax.numpy as np


def f(x, y):
    return 2 * x + 3 * y


inp = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
grad_indices = np.array([0, 0, 1, 0, 1])  # this now has to be an array


def partialf(i):
    idx = int(grad_indices[i])  # expect: JAX703
    grad_result = jax.grad(f, argnums=idx)(inp[i], inp[i])
    return grad_result


try:
    grad_result = jax.lax.map(partialf, np.arange(5))
except jax.errors.ConcretizationTypeError as err:
    print(type(err).__name__)
