# Changing the learning rate global between epochs; the jitted step never sees it.
import jax
import jax.numpy as jnp

lr = 0.1
X = jnp.arange(10.0)
Y = 4.0 * X


@jax.jit
def sgd_step(w):
    g = jax.grad(lambda w: jnp.mean((w * X - Y) ** 2))(w)
    return w - lr * g  # expect: JAX102


w = jnp.array(0.0)
for epoch in range(20):
    if epoch == 10:
        lr = 0.001
    w = sgd_step(w)
print(w)
