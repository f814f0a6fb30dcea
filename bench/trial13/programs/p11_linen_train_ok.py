# flax linen with TrainState; correct.
import jax
import jax.numpy as jnp
import flax.linen as nn
import optax
from flax.training import train_state


class CNN(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.Dense(32)(x)
        x = nn.relu(x)
        return nn.Dense(10)(x)


model = CNN()
key = jax.random.key(0)
params = model.init(key, jnp.ones((1, 20)))["params"]
state = train_state.TrainState.create(apply_fn=model.apply, params=params, tx=optax.adam(1e-3))
xb = jax.random.normal(key, (16, 20))
yb = jnp.arange(16) % 10


@jax.jit
def train_step(state, xb, yb):
    def loss_fn(params):
        logits = state.apply_fn({"params": params}, xb)
        return optax.softmax_cross_entropy_with_integer_labels(logits, yb).mean()

    loss, grads = jax.value_and_grad(loss_fn)(state.params)
    return state.apply_gradients(grads=grads), loss


for _ in range(5):
    state, loss = train_step(state, xb, yb)
print(loss)
