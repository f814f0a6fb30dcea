# Debug print inside an nnx module's __call__ while training under nnx.jit.
import jax.numpy as jnp
import optax
from flax import nnx


class Net(nnx.Module):
    def __init__(self, rngs):
        self.lin = nnx.Linear(3, 1, rngs=rngs)

    def __call__(self, x):
        h = self.lin(x)
        print("activations", h.mean())  # expect: JAX101
        return h


model = Net(nnx.Rngs(0))
opt = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)


@nnx.jit
def step(model, opt, x):
    loss, grads = nnx.value_and_grad(lambda m: (m(x) ** 2).mean())(model)
    opt.update(model, grads)
    return loss


x = jnp.ones((4, 3))
for _ in range(3):
    step(model, opt, x)
