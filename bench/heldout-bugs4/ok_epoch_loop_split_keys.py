# ok: one key per epoch (split up front), one mini-batch draw per key; numpy data indexed freely.
import jax
import jax.numpy as jnp
import numpy as np
from jax import random


@jax.jit
def train_step(w, xb, yb):
    grad = jax.grad(lambda w_: jnp.mean((xb @ w_ - yb) ** 2))(w)
    return w - 0.1 * grad


def match(x, y, random_key, num_epochs=5, batch_size=4):
    num_points = x.shape[0]
    w = jnp.zeros(x.shape[1])
    loop_keys = random.split(random_key, num_epochs)
    for i in range(num_epochs):
        idx = random.randint(loop_keys[i], (batch_size,), 0, num_points)
        w = train_step(w, x[idx, :], y[idx])
    return w


x_np = np.random.default_rng(0).normal(size=(32, 3)).astype(np.float32)
x_np[0] = 0.0
y_np = x_np @ np.array([1.0, -2.0, 0.5], dtype=np.float32)
print(match(jnp.asarray(x_np), jnp.asarray(y_np), random.PRNGKey(0)))
