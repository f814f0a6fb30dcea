# Source: https://github.com/jax-ml/jax/issues/1076 ("noob vmap question with if statement")
# murphyk vectorised a 1d truncated Gaussian kernel with vmap and got "Abstract value passed
# to `bool`, which requires a concrete value" from `if np.abs(x) > lam:`; he had not called
# jit, but vmap traces too. Today: TracerBoolConversionError. jnp.where is the answer.
# Verbatim (imports, data and try/except added).
import jax
import jax.numpy as np
import numpy as onp
from jax import vmap


def kernel_scalar(x, lam=0.18, beta=1.0):
    if np.abs(x) > lam:  # expect: JAX701
        return 0.0
    else:
        return np.exp(-beta * x**2)


def kernel(xs):
    kernels = vmap(kernel_scalar)(xs)
    return kernels


n = 10
xs = onp.random.randn(n)
try:
    k = kernel(xs)
except jax.errors.TracerBoolConversionError as err:
    print(type(err).__name__)
print(vmap(lambda x: np.where(np.abs(x) > 0.18, 0.0, np.exp(-(x**2))))(xs))
