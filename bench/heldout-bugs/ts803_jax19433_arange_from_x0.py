# Source: https://github.com/jax-ml/jax/issues/19433 ("jax.numpy.arange resists JIT even with
# static shape")
# "in my head arange always returns an array of length 2 but JIT still doesn't allow this":
# bounds taken from a traced element raise ConcretizationTypeError.
# Verbatim.
import jax.numpy as np
from jax import jit


@jit
def f(x: np.ndarray) -> np.ndarray:
    return np.arange(x[0] - 1, x[0] + 1)  # expect: JAX803


try:
    print(f(np.zeros(1).astype(int)))
except Exception as err:
    print(type(err).__name__, str(err).splitlines()[0])
