# Logging the loss as a Python float inside the jitted step (torch: loss.item()).
import jax
import jax.numpy as jnp
import optax

key = jax.random.key(1)
X = jax.random.normal(key, (32, 4))
y = X.sum(axis=1)
params = jnp.zeros(4)
opt = optax.sgd(0.05)
opt_state = opt.init(params)
history = []


@jax.jit
def step(params, opt_state):
    def loss_fn(w):
        return ((X @ w - y) ** 2).mean()

    loss, grads = jax.value_and_grad(loss_fn)(params)
    updates, opt_state = opt.update(grads, opt_state)
    return optax.apply_updates(params, updates), opt_state, loss.item()  # expect: JAX703


for _ in range(10):
    params, opt_state, loss = step(params, opt_state)
    history.append(loss)
print(history[-1])
