# OK (no findings expected): flax.nnx state changes inside nnx.jit are tracked by nnx
# (Variable updates, BatchNorm statistics, an Rngs stream); nothing leaks, unlike the
# gw103 files. The optimizer update uses the nnx API.
import jax.numpy as jnp
import optax
from flax import nnx


class Counter(nnx.Variable):
    pass


class Model(nnx.Module):
    def __init__(self, rngs: nnx.Rngs):
        self.linear = nnx.Linear(3, 2, rngs=rngs)
        self.bn = nnx.BatchNorm(2, rngs=rngs)
        self.dropout = nnx.Dropout(0.1, rngs=rngs)
        self.calls = Counter(jnp.array(0))

    def __call__(self, x):
        self.calls[...] += 1
        return self.dropout(self.bn(self.linear(x)))


model = Model(nnx.Rngs(0))
optimizer = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)


def mse(model, x, y):
    return jnp.mean((model(x) - y) ** 2)


@nnx.jit
def train_step(model, optimizer, batch):
    grads = nnx.grad(mse)(model, *batch)
    optimizer.update(model, grads)
    return mse(model, *batch)


for _ in range(3):
    loss = train_step(model, optimizer, (jnp.ones((4, 3)), jnp.zeros((4, 2))))
print(float(loss), int(model.calls[...]))
