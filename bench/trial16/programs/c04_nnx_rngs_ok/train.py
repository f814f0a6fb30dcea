import jax
import jax.numpy as jnp
import optax
from flax import nnx

from nnxmodels import ScaledAttention

rngs = nnx.Rngs(params=0, dropout=1)
model = ScaledAttention(8, 0.1, rngs=rngs)
optimizer = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)


@nnx.jit
def train_step(model, optimizer, x, mask):
    def loss_fn(model):
        return jnp.mean(model(x, mask) ** 2)

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss


key = jax.random.key(1)
for i in range(3):
    x = jax.random.normal(jax.random.fold_in(key, i), (2, 5, 8))
    mask = jnp.tril(jnp.ones((5, 5), dtype=bool))
    print(train_step(model, optimizer, x, mask))
