# Source: https://github.com/jax-ml/jax/issues/4837 ("jax.numpy.mean over list of arrays")
# Baschdl averaged several gradients, a Python list of arrays, with jax.numpy.mean(arrays,
# axis=0); NumPy accepts the list, jax.numpy raises TypeError ("mean requires ndarray or scalar
# arguments, got <class 'list'>"). hawkinsp: intended, jax.numpy only takes arrays; stack the
# list first (jnp.mean(jnp.stack(arrays), axis=0)).
# Verbatim (the report's lines; try/except and the stacked version added).
import jax.numpy
import numpy

arrays = [numpy.random.random((4, 2)) for _ in range(3)]

print(numpy.mean(arrays, axis=0).shape)  # works
try:
    jax.numpy.mean(arrays, axis=0)  # expect: JAX501
except TypeError as err:
    print(type(err).__name__, str(err)[:40])
print(jax.numpy.mean(jax.numpy.stack(arrays), axis=0).shape)
