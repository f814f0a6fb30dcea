# ok: iterators and generators are consumed by Python, outside traced code; scanned
# minibatches are pre-stacked arrays.
import jax
import jax.numpy as jnp
from jax import lax


def minibatches(dataset, batch_size):
    for idx in range(0, dataset.shape[0], batch_size):
        yield dataset[idx : idx + batch_size]


def loss_fn(w, batch):
    return jnp.mean((batch - w) ** 2)


@jax.jit
def train_step(w, batch):
    return w - 0.1 * jax.grad(loss_fn)(w, batch)


dataset = jnp.arange(8.0)
w = 0.0
for batch in minibatches(dataset, 2):
    w = train_step(w, batch)

stacked = dataset.reshape(4, 2)


def scan_step(w, batch):
    return train_step(w, batch), loss_fn(w, batch)


w2, losses = lax.scan(scan_step, 0.0, stacked)
it = iter(range(10))
total = lax.fori_loop(0, 10, lambda i, c: c + i, 0)
print(float(w), float(w2), losses.shape, int(total), next(it))
