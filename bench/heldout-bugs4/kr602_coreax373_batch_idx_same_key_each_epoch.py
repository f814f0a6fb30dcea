# Source: https://github.com/gchq/coreax/issues/373 ("Review randomness in SlicedScoreMatching
# match() method", 2024)
# bk958178: "the random indexing variable `idx` in the SlicedScoreMatching method match() gives
# the same output each time. Do we want to change this to split the random key and use the
# result from the split each time?" -- every epoch drew the same mini-batch. The fixed version
# splits `batch_key` into `loop_keys` (one per epoch).
# Reconstructed: the report describes the line; the training loop keeps coreax's names
# (random_key, num_epochs, batch_size, train_step) around a small least-squares step.
import jax
import jax.numpy as jnp
from jax import random


@jax.jit
def train_step(w, xb, yb):
    grad = jax.grad(lambda w_: jnp.mean((xb @ w_ - yb) ** 2))(w)
    return w - 0.1 * grad


def match(x, y, random_key, num_epochs=5, batch_size=4):
    num_points = x.shape[0]
    w = jnp.zeros(x.shape[1])
    batches = []
    for i in range(num_epochs):
        # Sample some data-points to pass for this step
        idx = random.randint(random_key, (batch_size,), 0, num_points)  # expect: JAX602
        batches.append(idx)
        w = train_step(w, x[idx, :], y[idx])
    return w, batches


x = random.normal(random.PRNGKey(1), (32, 3))
y = x @ jnp.array([1.0, -2.0, 0.5])
w, batches = match(x, y, random.PRNGKey(0))
print("every epoch used batch", batches[0], all((b == batches[0]).all() for b in batches))
