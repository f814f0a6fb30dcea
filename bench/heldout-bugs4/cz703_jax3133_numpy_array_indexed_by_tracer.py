# Source: https://github.com/jax-ml/jax/issues/3133 ("Tracing a function that indexes into
# Numpy array gives a poor error message")
# john-m-jumper: `g = lambda i: np.zeros((3, 3))[i, :]` works eagerly but fails under jax.jit
# with "Tracer can't be used with raw numpy functions": the traced index is handed to a raw
# NumPy array's __getitem__, which converts it to a NumPy array. Today the error is
# TracerArrayConversionError. The jnp version `f` works.
# Verbatim (imports and try/except added).
import jax
import jax.numpy as jnp
import numpy as np

f = lambda i: jnp.zeros((3, 3))[i, :]
g = lambda i: np.zeros((3, 3))[i, :]  # expect: JAX703

a = np.array([1, 2])

f(a)  # Okay
jax.jit(f)(a)  # Okay

g(a)  # Okay
try:
    jax.jit(g)(a)  # Fail
except jax.errors.TracerArrayConversionError as err:
    print(type(err).__name__)
