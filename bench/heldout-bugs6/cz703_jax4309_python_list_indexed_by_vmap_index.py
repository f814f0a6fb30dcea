# Source: https://github.com/jax-ml/jax/issues/4309 ("Help with array slice indices")
# AashinShazar unrolled a double loop into a single index n and vmapped the inner function
# over n; the (j, i) pairs were kept in a Python list `newMap`, and `newMap[n]` with a
# traced n fails: "list indices must be integers or slices, not BatchTracer".
# Today: TracerIntegerConversionError (__index__ of a traced value).
# Adapted (the user's getFeature trimmed: jax.ops.index_update written as .at[].set, the
# feature rows reduced to three; the list and the indexing are the user's).
import jax
import jax.numpy as jnp
import numpy as np


def getFeature(x, resMap, st, en):
    newMap = []
    for j in range(0, (len(resMap[:, 0]) - 1)):
        for i in range(0, (len(resMap[0]) - 1)):
            newMap.append([j, i])

    def innerLoop(n):
        Stacked = jnp.zeros((3, en - st))
        j, i = newMap[n]  # expect: JAX703
        Stacked = Stacked.at[0, :].set(x[resMap[j, i], st:en])
        Stacked = Stacked.at[1, :].set(x[resMap[j, i + 1], st - 1 : en - 1])
        Stacked = Stacked.at[2, :].set(x[resMap[j, i + 1], st + 1 : en + 1])
        return Stacked

    return jax.vmap(innerLoop)(jnp.arange(len(newMap)))


x = jnp.arange(60.0).reshape(6, 10)
resMap = np.array([[0, 1, 2], [3, 4, 5]])
try:
    print(getFeature(x, resMap, 2, 6).shape)
except TypeError as err:
    print(type(err).__name__)
