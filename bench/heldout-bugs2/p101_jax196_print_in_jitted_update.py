# Source: https://github.com/jax-ml/jax/issues/196 ("How to print values inside a
# @jit-compiled function?")
# The user put print() in a jitted update step to watch the loss and saw
# `Traced<ShapedArray(float32[1,64])...>` once, at trace time, and nothing on later steps.
# mattjj: "you can't print values inside a `jit`-compiled function yet, so ... remove
# `@jit`, and maybe move it to `opt_update` instead."
# Reconstructed: the report gives only the printed tracer and the advice; the update step
# is written in the style of the era's stax/optimizers examples (plain params tuple, SGD).
import jax.numpy as np
from jax import grad, jit, random


def predict(params, inputs):
    w, b = params
    return np.tanh(inputs @ w + b)


def loss(params, batch):
    inputs, targets = batch
    return np.mean((predict(params, inputs) - targets) ** 2)


@jit
def update(i, params, batch):
    l = loss(params, batch)
    print("step", i, "loss", l)  # expect: JAX101
    grads = grad(loss)(params, batch)
    return [p - 0.1 * g for p, g in zip(params, grads)]


k1, k2 = random.split(random.PRNGKey(0))
params = [random.normal(k1, (3, 64)), np.zeros(64)]
batch = (random.normal(k2, (8, 3)), np.ones((8, 64)))
for i in range(3):
    params = update(i, params, batch)
print("done: three steps ran, the print above appeared once, with tracers")
