# %% md
# Training a small classifier with flax nnx (synthetic data, MNIST-shaped).
# %% [1]
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx
# %% [2]
class CNN(nnx.Module):
    def __init__(self, *, rngs: nnx.Rngs):
        self.conv = nnx.Conv(1, 8, kernel_size=(3, 3), rngs=rngs)
        self.fc = nnx.Linear(8 * 28 * 28, 10, rngs=rngs)

    def __call__(self, x):
        x = nnx.relu(self.conv(x))
        return self.fc(x.reshape(x.shape[0], -1))


model = CNN(rngs=nnx.Rngs(0))
optimizer = nnx.Optimizer(model, optax.adamw(1e-3), wrt=nnx.Param)
metrics = nnx.MultiMetric(accuracy=nnx.metrics.Accuracy(), loss=nnx.metrics.Average("loss"))
# %% [3]
@nnx.jit
def train_step(model, optimizer, metrics, images, labels):
    def loss_fn(model):
        logits = model(images)
        loss = optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()
        return loss, logits

    (loss, logits), grads = nnx.value_and_grad(loss_fn, has_aux=True)(model)
    metrics.update(loss=loss, logits=logits, labels=labels)
    optimizer.update(model, grads)
# %% [4]
rng = np.random.default_rng(0)
for step in range(3):
    images = rng.normal(size=(16, 28, 28, 1)).astype(np.float32)
    labels = rng.integers(0, 10, size=16)
    train_step(model, optimizer, metrics, images, labels)
print({k: float(v) for k, v in metrics.compute().items()})
