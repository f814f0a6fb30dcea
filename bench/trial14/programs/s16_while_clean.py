import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def newton_sqrt(a):
    def cond(state):
        i, x, err = state
        return jnp.logical_and(i < 50, err > 1e-6)

    def body(state):
        i, x, _ = state
        new = 0.5 * (x + a / x)
        return i + 1, new, jnp.abs(new - x)

    i, x, err = lax.while_loop(cond, body, (0, a, jnp.inf))
    return x, i


print(newton_sqrt(2.0))
