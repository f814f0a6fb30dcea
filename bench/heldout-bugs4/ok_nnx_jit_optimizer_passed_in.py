# ok: a class holds an nnx model and optimizer, but the jitted update is an nnx.jit function
# that takes them as arguments (the maintainers' advice), so nnx propagates the mutation.
import jax
import jax.numpy as jnp
import optax
from flax import nnx


@nnx.jit
def update_step(model, optimizer, data):
    def loss_fn(model):
        return jnp.mean((model(data) - 1.0) ** 2)

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss


class Algorithm:
    def __init__(self, model, lr):
        self.model = model
        self.optimizer = nnx.Optimizer(model, optax.adamw(lr), wrt=nnx.Param)

    def update(self, data):
        return update_step(self.model, self.optimizer, data)


algo = Algorithm(nnx.Linear(3, 1, rngs=nnx.Rngs(0)), 1e-2)
for _ in range(3):
    loss = algo.update(jnp.ones((4, 3)))
print(loss, jax.tree.leaves(nnx.state(algo.model))[0].shape)
