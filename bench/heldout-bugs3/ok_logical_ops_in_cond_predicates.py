# ok: element-wise logic for traced predicates, `is None` defaults, Python logic on static values.
from functools import partial

import jax
import jax.numpy as jnp


@jax.jit
def in_range(x, a, b):
    return jax.lax.cond((x > a) & (x <= b), lambda _: 666, lambda _: 999, None)


@jax.jit
def both_negative(x, y):
    return jax.lax.cond(jnp.logical_and(x < 0, y < 0), lambda v: v - 5000.0, lambda v: v + 100.0, x)


class Momentum:
    def __init__(self, momentum=0.9):
        self.momentum = momentum

    def update(self, lr, grads, m, momentum=None):
        momentum = self.momentum if momentum is None else momentum
        new_m = {k: momentum * m[k] + grads[k] for k in grads}
        return {k: -lr * new_m[k] for k in grads}, new_m


@partial(jax.jit, static_argnames=("training", "use_bias"))
def layer(x, training=False, use_bias=True):
    if training and use_bias:
        return x + 1.0
    return x


opt = Momentum()
update = jax.jit(opt.update)
print(in_range(jnp.array(2.5), 2.0, 3.0), both_negative(-1.0, -2.0))
print(update(0.1, {"w": jnp.ones(3)}, {"w": jnp.zeros(3)}, 0.5)[0])
print(update(0.1, {"w": jnp.ones(3)}, {"w": jnp.zeros(3)})[0])
print(layer(jnp.ones(2), training=True))
