# ok: the jitted step returns what the caller collects; the list lives outside the trace, and a
# while_loop counts its iterations in the carry.
import jax
import jax.numpy as jnp
from jax import jit, lax

history = []


@jit
def step(x):
    return x * 0.5, jnp.sum(x)


x = jnp.arange(3.0)
for _ in range(3):
    x, total = step(x)
    history.append(total)
print([float(t) for t in history])


def count_to_ten(init):
    def body(carry):
        val, n = carry
        return val + 1, n + 1

    return lax.while_loop(lambda c: c[0] < 10, body, (init, 0))


print(count_to_ten(0))
