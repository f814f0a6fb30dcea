# Wrapping with jax.jit inside the training loop.
import jax
import jax.numpy as jnp


def loss(w, x):
    return jnp.sum((w * x) ** 2)


w = jnp.ones(3)
x = jnp.arange(3.0)
for i in range(5):
    g = jax.jit(jax.grad(loss))(w, x)  # expect: JAX1001
    w = w - 0.1 * g
print(w)
