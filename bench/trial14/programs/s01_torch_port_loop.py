# Porting my PyTorch MLP training loop to JAX.
import jax
import jax.numpy as jnp
import numpy as np


def init_params(key, sizes):
    params = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        key, sub = jax.random.split(key)
        params.append({"w": jax.random.normal(sub, (n_in, n_out)) * 0.1, "b": jnp.zeros(n_out)})
    return params


def forward(params, x):
    for layer in params[:-1]:
        x = jax.nn.relu(x @ layer["w"] + layer["b"])
    return x @ params[-1]["w"] + params[-1]["b"]


def loss_fn(params, x, y):
    pred = forward(params, x)
    return jnp.mean((pred - y) ** 2)


@jax.jit
def train_step(params, x, y, lr):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    print(f"step loss {loss}")  # expect: JAX101
    params = jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)
    return params, loss


class DataLoader:
    def __init__(self, x, y, batch_size):
        self.x, self.y, self.batch_size = x, y, batch_size

    def __iter__(self):
        idx = np.random.permutation(len(self.x))
        for i in range(0, len(self.x), self.batch_size):
            j = idx[i : i + self.batch_size]
            yield self.x[j], self.y[j]


rng = np.random.default_rng(0)
X = rng.normal(size=(256, 4)).astype(np.float32)
Y = X.sum(axis=1, keepdims=True)
params = init_params(jax.random.key(0), [4, 32, 1])
for epoch in range(3):
    running = 0.0
    for xb, yb in DataLoader(X, Y, 32):
        params, loss = train_step(params, xb, yb, 0.01)
        running += loss.item()
    print(epoch, running)
