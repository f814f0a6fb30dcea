# Gradient w.r.t. two arguments with argnums; correct.
import jax
import jax.numpy as jnp


def loss(w, b, x, y):
    return jnp.sum((x * w + b - y) ** 2)


x = jnp.arange(5.0)
y = 2 * x + 1
w, b = 0.0, 0.0
g = jax.jit(jax.grad(loss, argnums=(0, 1)))
for i in range(100):
    gw, gb = g(w, b, x, y)
    w = w - 0.01 * gw
    b = b - 0.01 * gb
print(w, b)
