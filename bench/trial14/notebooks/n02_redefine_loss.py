# %% [1]
import jax
import jax.numpy as jnp
# %% [2]
def loss(w, x, y):
    pred = x @ w
    print("pred", pred)  # expect: JAX101
    return jnp.mean((pred - y) ** 2)
# %% [3]
grad_fn = jax.jit(jax.grad(loss))
w = jnp.zeros(3)
for i in range(3):
    w = w - 0.1 * grad_fn(w, jnp.ones((4, 3)), jnp.ones(4))
w
# %% [4]
def loss(w, x, y):
    pred = x @ w
    jax.debug.print("pred {}", pred)
    return jnp.mean((pred - y) ** 2)
