# Source: https://github.com/dfm/tinygp/issues/85 ("[bug] JaxArrays and predictions with
# non-default X_test parameter")
# In quasisep.py `to_general_qsm`: `Xs = jax.tree_util.tree_map(lambda x: np.append(x[0],
# x[:-1]), X2)` with `np` = numpy; under the jitted `_condition` this raised
# TracerArrayConversionError ("The numpy.ndarray conversion method __array__() was called").
# Adapted: the library method reduced to the helper and a jitted caller with the same names.
import jax
import jax.numpy as jnp
import numpy as np


def to_general_qsm(X1, X2):
    Xs = jax.tree_util.tree_map(lambda x: np.append(x[0], x[:-1]), X2)  # expect: JAX703
    return jax.tree_util.tree_map(lambda a, b: a - b, X1, Xs)


@jax.jit
def _condition(X_test, X):
    return to_general_qsm(X_test, X)


X = jnp.linspace(0.0, 1.0, 5)
try:
    print(_condition(X, X))
except Exception as err:
    print(type(err).__name__, str(err).splitlines()[0])
