# %% [1]
import jax
import jax.numpy as jnp
import optax
# %% [2]
params = {"w": jnp.ones(3)}
tx = optax.sgd(0.1)
opt_state = tx.init(params)
# %% [3]
@jax.jit
def train_step(params, opt_state, x):
    loss, grads = jax.value_and_grad(lambda p: jnp.sum((p["w"] @ x) ** 2))(params)
    updates, opt_state = tx.update(grads, opt_state)
    return optax.apply_updates(params, updates), opt_state, loss.item()  # expect: JAX703
# %% [4]
for i in range(3):
    params, opt_state, loss = train_step(params, opt_state, jnp.ones(3))
    print(i, loss)
