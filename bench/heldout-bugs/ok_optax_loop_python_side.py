# ok: optax training loop: jitted step created once, Python-side logging with float()/print
# outside jit, losses appended to a list outside traced code, a global constant never rebound.
import jax
import jax.numpy as jnp
import optax

LEARNING_RATE = 1e-2
optimizer = optax.adam(LEARNING_RATE)


def loss_fn(params, x, y):
    pred = x @ params["w"] + params["b"]
    return jnp.mean((pred - y) ** 2)


@jax.jit
def step(params, opt_state, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    updates, opt_state = optimizer.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss


params = {"w": jnp.zeros((3, 1)), "b": jnp.zeros(1)}
opt_state = optimizer.init(params)
x = jnp.ones((8, 3))
y = jnp.ones((8, 1))
history = []
for epoch in range(5):
    params, opt_state, loss = step(params, opt_state, x, y)
    history.append(float(loss))
    if loss < 0.5:
        print("epoch", epoch, "loss", float(loss))
print(len(history))
