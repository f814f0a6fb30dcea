# PyTorch habit: print inside the step to watch the loss.
import jax
import jax.numpy as jnp
import optax

X = jnp.linspace(-1, 1, 64)[:, None]
y = 3 * X[:, 0] + 1

params = {"w": jnp.ones((1,)), "b": jnp.array(0.0)}
tx = optax.sgd(0.1)
state = tx.init(params)


def loss_fn(p):
    return jnp.mean((X @ p["w"] + p["b"] - y) ** 2)


@jax.jit
def train_step(p, s):
    loss, g = jax.value_and_grad(loss_fn)(p)
    print("loss:", loss)  # expect: JAX101
    upd, s = tx.update(g, s)
    return optax.apply_updates(p, upd), s, loss


for epoch in range(5):
    params, state, loss = train_step(params, state)
print(float(loss))
