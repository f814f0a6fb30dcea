# %% [1]
import jax
import jax.numpy as jnp
# %% [2]
def force(x):
    return -x
# %% [3]
@jax.jit
def trajectory(x0, v0):
    def body(state, _):
        x, v = state
        v = v + 0.01 * force(x)  # expect: JAX102
        x = x + 0.01 * v
        return (x, v), x

    _, xs = jax.lax.scan(body, (x0, v0), None, length=500)
    return xs
# %% [4]
xs = trajectory(1.0, 0.0)
print(xs[-1])
# %% md
Now try an anharmonic force: redefine and re-run.
# %% [5]
def force(x):
    return -x - 0.5 * x**3
# %% [6]
xs_anh = trajectory(1.0, 0.0)
print(xs_anh[-1], xs_anh[-1] == xs[-1])
