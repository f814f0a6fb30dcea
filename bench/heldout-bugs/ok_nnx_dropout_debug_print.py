# ok: flax nnx model with dropout, nnx.jit train step, jax.debug.print inside and print outside,
# model.train()/model.eval() mode switches done in Python.
import jax
import jax.numpy as jnp
import optax
from flax import nnx


class MLP(nnx.Module):
    def __init__(self, rngs: nnx.Rngs):
        self.linear1 = nnx.Linear(3, 8, rngs=rngs)
        self.dropout = nnx.Dropout(0.2, rngs=rngs)
        self.linear2 = nnx.Linear(8, 1, rngs=rngs)

    def __call__(self, x):
        return self.linear2(self.dropout(nnx.relu(self.linear1(x))))


model = MLP(nnx.Rngs(0))
optimizer = nnx.Optimizer(model, optax.sgd(1e-2), wrt=nnx.Param)


@nnx.jit
def train_step(model, optimizer, x, y):
    def loss_fn(model):
        return jnp.mean((model(x) - y) ** 2)

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    jax.debug.print("loss {l}", l=loss)
    return loss


x = jnp.ones((4, 3))
y = jnp.zeros((4, 1))
model.train()
loss = train_step(model, optimizer, x, y)
model.eval()
print("final loss", float(loss), model(x).shape)
