# %% [1]
import jax
import jax.numpy as jnp
# %% [2]
@jax.jit
def update(w, g, lr):
    new_w = w - lr * g
    print("new w:", new_w)  # expect: JAX101
    return new_w
# %% [3]
w = jnp.ones(2)
for i in range(3):
    w = update(w, jnp.ones(2), 0.1)
# %% [4]
@jax.jit
def update2(w, g, lr):
    new_w = w - lr * g
    jax.debug.print("new w: {}", new_w)
    return new_w


update2(w, jnp.ones(2), 0.1)
