# Newton iteration with a Python while loop inside jit.
import jax
import jax.numpy as jnp


@jax.jit
def sqrt_newton(a):
    x = a
    while jnp.abs(x * x - a) > 1e-6:  # expect: JAX701
        x = 0.5 * (x + a / x)
    return x


print(sqrt_newton(2.0))
