# jax.debug.print and debug.callback inside jit; correct.
import jax
import jax.numpy as jnp


def log_value(v):
    print("host got", v)


@jax.jit
def f(x):
    y = jnp.sin(x)
    jax.debug.print("y = {y}", y=y)
    jax.debug.callback(log_value, y.sum())
    return y * 2


print(f(jnp.arange(3.0)))
