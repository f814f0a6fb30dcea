# ok: a script-style training loop: the step is jitted once, a fresh key is split off every
# step, parameters live in a list updated functionally, and the losses are collected on the
# host after the jitted call returns.
import jax
import jax.numpy as jnp
import optax

params = [jnp.zeros((3, 1)), jnp.zeros(1)]
optimizer = optax.adam(1e-2)
opt_state = optimizer.init(params)


def loss_fn(params, x, y):
    w, b = params
    return jnp.mean((x @ w + b - y) ** 2)


@jax.jit
def step(params, opt_state, key):
    x = jax.random.normal(key, (16, 3))
    y = x @ jnp.array([[1.0], [-2.0], [0.5]])
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    updates, opt_state = optimizer.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss


key = jax.random.PRNGKey(0)
losses = []
for _ in range(20):
    key, sub = jax.random.split(key)
    params, opt_state, loss = step(params, opt_state, sub)
    losses.append(float(loss))
params = [p * 1.0 for p in params]
print(losses[0] > losses[-1], params[0].shape)
