# Debugging an nnx training step with print, the way I do in torch.
import jax.numpy as jnp
import optax
from flax import nnx


class Net(nnx.Module):
    def __init__(self, rngs: nnx.Rngs):
        self.fc = nnx.Linear(3, 1, rngs=rngs)

    def __call__(self, x):
        return self.fc(x)


model = Net(nnx.Rngs(1))
opt = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)


@nnx.jit
def step(model, opt, x, y):
    def loss_fn(m):
        return jnp.mean((m(x) - y) ** 2)

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    print("grads norm", optax.global_norm(grads))  # expect: JAX101
    opt.update(model, grads)
    return loss


for i in range(3):
    print(step(model, opt, jnp.ones((4, 3)), jnp.zeros((4, 1))))
