# Same with lax.while_loop; correct.
import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def sqrt_newton(a):
    def cond(x):
        return jnp.abs(x * x - a) > 1e-6

    def body(x):
        return 0.5 * (x + a / x)

    return lax.while_loop(cond, body, a)


print(sqrt_newton(2.0))
