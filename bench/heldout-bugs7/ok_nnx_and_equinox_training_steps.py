# ok: a flax nnx training step (nnx.jit, nnx.value_and_grad) and an equinox module under
# filter_jit, branching only on static attributes, converting only host values with int(),
# and checking values with eqx.error_if.
import equinox as eqx
import jax
import jax.numpy as jnp
import optax
from flax import nnx


class MLP(nnx.Module):
    def __init__(self, rngs, use_bias=True):
        self.linear = nnx.Linear(3, 1, use_bias=use_bias, rngs=rngs)
        self.use_bias = use_bias

    def __call__(self, x):
        y = self.linear(x)
        if self.use_bias:
            y = y + 0.0
        return y


model = MLP(nnx.Rngs(0))
optimizer = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)


@nnx.jit
def train_step(model, optimizer, x, y):
    def loss_fn(model):
        return jnp.mean((model(x) - y) ** 2)

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss


for _ in range(3):
    loss = train_step(model, optimizer, jnp.ones((8, 3)), jnp.ones((8, 1)))
print(float(loss))


class Scaled(eqx.Module):
    weight: jax.Array
    n_out: int = eqx.field(static=True)

    def __call__(self, x):
        x = eqx.error_if(x, jnp.any(jnp.isnan(x)), "nan input")
        out = jnp.tile(x @ self.weight, int(self.n_out))
        return out if self.n_out > 1 else out[:1]


scaled = Scaled(jnp.ones((3,)), n_out=2)
print(eqx.filter_jit(scaled)(jnp.ones(3)))
