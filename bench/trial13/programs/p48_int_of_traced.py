# Using a traced value as a Python int for range.
import jax
import jax.numpy as jnp


@jax.jit
def poly(x, degree):
    total = 0.0
    for k in range(degree):  # expect: JAX703
        total = total + x**k
    return total


print(poly(2.0, 4))
