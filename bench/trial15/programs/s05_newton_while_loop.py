# Newton with lax.while_loop and a (x, iteration) tuple carry.
import jax
import jax.numpy as jnp


def f(x, c):
    return x**3 - 2 * x - c


df = jax.grad(f)


@jax.jit
def newton(x0, c, tol=1e-6, max_iter=50):
    def cond(state):
        x, i = state
        return (jnp.abs(f(x, c)) > tol) & (i < max_iter)

    def body(state):
        x, i = state
        return x - f(x, c) / df(x, c), i + 1

    x, n_iter = jax.lax.while_loop(cond, body, (x0, 0))
    return x, n_iter


root, iters = newton(2.0, 5.0)
print(root, iters, f(root, 5.0))
