# Source: https://github.com/jax-ml/jax/issues/1348 ("Use of global keyword")
# A function that increments a global: eager gives 1, 2, 3; "if I @jit that function, I no
# longer get the same behavior: f() # gives 1, f() # gives 1, ..."
# Verbatim.
from jax import jit

g = 0


@jit
def f():
    global g
    g = g + 1  # expect: JAX103
    return g


print(f())  # gives 1
print(f())  # gives 1
print(f())  # gives 1
