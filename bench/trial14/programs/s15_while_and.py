# Newton iterations with a tolerance and a max-iter cap.
import jax
import jax.numpy as jnp
from jax import lax


def newton_sqrt(a, tol=1e-6, max_iter=50):
    def cond(state):
        i, x, err = state
        return (i < max_iter) and (err > tol)  # expect: JAX702

    def body(state):
        i, x, _ = state
        new = 0.5 * (x + a / x)
        return i + 1, new, jnp.abs(new - x)

    return lax.while_loop(cond, body, (0, a, jnp.inf))[1]


print(newton_sqrt(jnp.float32(2.0)))
