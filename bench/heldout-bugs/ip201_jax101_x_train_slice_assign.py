# Source: https://github.com/jax-ml/jax/issues/101 ("Numpy-style indexed update support.")
# "I use numpy to read data. In the naive numpy x_train[(i - 1) * 10000 : i * 10000, :, :, :]
# = data is OK! However, in the jax.numpy, it raise a ValueError". The user had replaced
# numpy by `import jax.numpy as np`; today the slice assignment raises TypeError.
# Reconstructed around the quoted line (CIFAR-style batches; small random stand-in batches).
import jax.numpy as np
import numpy as onp

x_train = np.zeros((3 * 4, 8, 8, 3))


def load_batch(i):
    # stand-in for unpickling data_batch_i
    return onp.full((4, 8, 8, 3), float(i), dtype=onp.float32)


try:
    for i in range(1, 4):
        data = load_batch(i)
        x_train[(i - 1) * 4 : i * 4, :, :, :] = data  # expect: JAX201
    print("filled", float(x_train.sum()))
except TypeError as err:
    print("TypeError:", str(err).splitlines()[0])
