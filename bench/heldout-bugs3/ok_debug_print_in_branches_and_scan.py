# ok: jax.debug.print in traced branches and loop bodies; plain print outside traced code.
import jax
import jax.numpy as jnp


def fun_a(x):
    jax.debug.print("a {}", x)
    return x + 1


def fun_b(x):
    jax.debug.print("b {}", x)
    return x * 2


def body(carry, x):
    jax.debug.print("carry={carry} x={x}", carry=carry, x=x)
    return carry + x, carry


@jax.jit
def run(index, xs):
    y = jax.lax.switch(index, [fun_a, fun_b], xs.sum())
    total, _ = jax.lax.scan(body, 0.0, xs)
    return y, total


result = run(0, jnp.arange(3.0))
print("result", result)
