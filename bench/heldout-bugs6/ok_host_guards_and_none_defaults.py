# ok: NumPy checks on concrete module-level arrays (np.less keeps them NumPy booleans), an
# optional scale defaulted with `is None` inside a jitted solver, and Python control flow on
# static configuration only.
import jax
import jax.numpy as jnp
import numpy as np

y = jnp.arange(10.0)


def shift(x):
    if np.all(np.less(np.asarray(y), 0)):
        print("all negative")
    return x + y


def solve(y0, grid, output_scale=None):
    if output_scale is None:
        output_scale = jnp.ones(())

    def step(y, t_pair):
        t0, t1 = t_pair
        y_next = y - 0.5 * (t1 - t0) * y
        return y_next, y_next

    _, ys = jax.lax.scan(step, y0, (grid[:-1], grid[1:]))
    return output_scale * ys


print(jax.jit(shift)(1.0)[:3])
print(jax.jit(solve)(1.0, jnp.linspace(0.0, 1.0, 5), 2.0))
print(jax.jit(solve)(1.0, jnp.linspace(0.0, 1.0, 5)))
