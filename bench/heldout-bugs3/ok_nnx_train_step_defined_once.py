# ok: flax nnx model; the jitted train step is defined once at module level and reused.
import jax
import jax.numpy as jnp
import optax
from flax import nnx


class MLP(nnx.Module):
    def __init__(self, rngs: nnx.Rngs):
        self.hidden = nnx.Linear(4, 16, rngs=rngs)
        self.out = nnx.Linear(16, 1, rngs=rngs)
        self.dropout = nnx.Dropout(0.1, rngs=rngs)

    def __call__(self, x):
        return self.out(self.dropout(nnx.relu(self.hidden(x))))


model = MLP(nnx.Rngs(0))
optimizer = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)


def mse(model, inputs, targets):
    return jnp.mean((model(inputs) - targets) ** 2)


@nnx.jit
def train_step(model, optimizer, inputs, targets):
    loss, grads = nnx.value_and_grad(mse)(model, inputs, targets)
    optimizer.update(model, grads)
    return loss


for i in range(3):
    loss = train_step(model, optimizer, jnp.ones((8, 4)) * i, jnp.ones((8, 1)))
print(loss)
