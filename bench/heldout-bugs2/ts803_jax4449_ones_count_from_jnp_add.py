# Source: https://github.com/jax-ml/jax/issues/4449 ("Operations on static inputs/shapes
# yield concretization errors")
# `count = jnp.add(arr.size, 1)` makes a traced value out of a static size; the following
# `jnp.ones((count,))` fails under jit ("Shapes must be 1D sequences of concrete values
# of integer type"); `arr.size + 1` works.
# Verbatim from the issue; try/except added.
import jax
import jax.numpy as jnp


@jax.jit
def custom_ones(arr):
    count = jnp.add(arr.size, 1)
    return jnp.ones((count,))  # expect: JAX803


a = jnp.ones((3,))
try:
    print(custom_ones(a))
except Exception as e:
    print(type(e).__name__)
