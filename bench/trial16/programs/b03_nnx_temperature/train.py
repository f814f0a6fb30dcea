import jax
import jax.numpy as jnp
import optax
from flax import nnx

from nnxmodels import ScaledAttention

model = ScaledAttention(8, rngs=nnx.Rngs(0))
optimizer = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)


@nnx.jit
def train_step(model, optimizer, x):
    def loss_fn(model):
        return jnp.mean(model(x) ** 2)

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss


x = jax.random.normal(jax.random.key(1), (2, 5, 8))
print(train_step(model, optimizer, x))
