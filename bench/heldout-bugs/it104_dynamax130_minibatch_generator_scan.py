# Source: https://github.com/probml/dynamax/issues/130 ("Fix `run_sgd` to extract iterator from
# compiled scan")
# "The _sample_minibatches function produces an generator that, under the hood, mutates an
# internal state. This doesn't play nicely within lax.scan. Instead, it silently fails and
# returns the first value of the iterator each time."
# Reconstructed (the linked gist is not available): run_sgd with the generator consumed in
# the scanned epoch body, as described.
import jax
import jax.numpy as jnp
from jax import lax


def _sample_minibatches(key, dataset, batch_size):
    n = dataset.shape[0]
    perm = jax.random.permutation(key, n)
    for idx in range(0, n, batch_size):
        yield dataset[perm[idx : idx + batch_size]]


def run_sgd(loss_fn, params, dataset, key, batch_size=2, num_epochs=3):
    sample_generator = _sample_minibatches(key, dataset, batch_size)
    seen = []

    def train_step(params, _):
        minibatch = next(sample_generator)  # expect: JAX104
        seen.append(1)
        grads = jax.grad(loss_fn)(params, minibatch)
        return params - 0.1 * grads, loss_fn(params, minibatch)

    params, losses = lax.scan(train_step, params, None, length=num_epochs)
    return params, losses, len(seen)


def loss_fn(w, batch):
    return jnp.mean((batch - w) ** 2)


dataset = jnp.arange(6.0)
params, losses, pulled = run_sgd(loss_fn, 0.0, dataset, jax.random.PRNGKey(0))
print("epochs:", losses.shape[0], "minibatches pulled from the generator:", pulled)
