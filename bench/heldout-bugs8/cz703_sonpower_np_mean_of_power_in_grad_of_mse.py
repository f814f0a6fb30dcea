# Source: https://openillumi.com/?p=109328 ("Can't Compute Derivatives with np.power in JAX
# Autodiff?", a retelling of a Stack Overflow question).
# The asker trains a linear model: the mean squared error is written with NumPy
# (`np.mean(np.power(...))`) and given to `jax.grad`; the parameters are tracers under grad and
# NumPy converts them: TracerArrayConversionError.
# Adapted (the question's lines; evidence added).
import numpy as np
from jax import errors, grad

x = np.linspace(0, 1, 100)
y = 2 * x + 3 + np.random.default_rng(0).standard_normal(100)


def f(params, x, y):
    return np.mean(np.power((params["w"] * x + params["b"]) - y, 2))  # expect: JAX703


params = {"w": 2.4, "b": 10.0}
print(f(params, x, y))
df = grad(f)
try:
    print(df(params, x, y))
except errors.TracerArrayConversionError as err:
    print(type(err).__name__)
