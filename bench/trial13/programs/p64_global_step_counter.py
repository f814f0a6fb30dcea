# Counting steps with a global inside jit.
import jax
import jax.numpy as jnp

step_count = 0
last_loss = None


@jax.jit
def step(w):
    global step_count, last_loss
    step_count += 1  # expect: JAX103
    loss = jnp.sum(w**2)
    last_loss = loss  # expect: JAX103
    return w - 0.1 * jax.grad(lambda w: jnp.sum(w**2))(w)


w = jnp.ones(2)
for _ in range(3):
    w = step(w)
print(step_count, last_loss + 1)
