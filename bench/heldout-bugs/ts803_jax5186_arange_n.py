# Source: https://github.com/jax-ml/jax/issues/5186 ("new version breaks arange?")
# "Just upgraded ... I have a longer program using jax.np.arange that used to work just fine.
# Now it breaks": ConcretizationTypeError, "It arose in jax.numpy.arange argument `stop`".
# Verbatim (the user's example code; `np` is jax.numpy as in the report).
import jax.numpy as np
from jax import jit


def test_arange(n):
    return np.arange(0, n, 1)  # expect: JAX803


test = jit(test_arange)

try:
    print(test(5))
except Exception as err:
    print(type(err).__name__, str(err).splitlines()[0])
