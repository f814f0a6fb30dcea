# %% [1]
import jax
import jax.numpy as jnp

history = []
# %% [2]
@jax.jit
def step(w, x):
    loss = jnp.mean((x @ w) ** 2)
    history.append(loss)  # expect: JAX103
    return w - 0.1 * jax.grad(lambda w: jnp.mean((x @ w) ** 2))(w)
# %% [3]
w = jnp.ones(2)
for _ in range(3):
    w = step(w, jnp.ones((4, 2)))
print(len(history), history[0] + 1)
