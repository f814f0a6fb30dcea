import jax
import jax.numpy as jnp


def train(w, batches):
    for x, y in batches:
        step = jax.jit(lambda w, x, y: w - 0.1 * jax.grad(lambda w: jnp.mean((x @ w - y) ** 2))(w))  # expect: JAX1001
        w = step(w, x, y)
    return w


batches = [(jnp.ones((4, 2)), jnp.ones(4)) for _ in range(3)]
print(train(jnp.zeros(2), batches))
