# Source: https://github.com/8bitmp3/JAX-Flax-Tutorial-Image-Classification-with-Linen/issues/2
# ("Trainning problems")
# Khazan1 adapts the Flax image-classification tutorial to a regression network and prints inside
# the jitted `train_step`: the console shows "with primal = Traced<ShapedArray(float32[32,5])>...
# tangent = Traced<...>" once, at trace time, instead of the predictions of each batch.
# Reconstructed (the report gave the tutorial's train step and the printed tracer).
import flax.linen as nn
import jax
import jax.numpy as jnp
import optax
from flax.training import train_state


class Regressor(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.relu(nn.Dense(16)(x))
        return nn.Dense(5)(x)


@jax.jit
def train_step(state, batch):
    def loss_fn(params):
        preds = state.apply_fn({"params": params}, batch["x"])
        print(preds)  # expect: JAX101
        return jnp.mean((preds - batch["y"]) ** 2)

    loss, grads = jax.value_and_grad(loss_fn)(state.params)
    return state.apply_gradients(grads=grads), loss


model = Regressor()
params = model.init(jax.random.PRNGKey(0), jnp.ones((1, 8)))["params"]
state = train_state.TrainState.create(apply_fn=model.apply, params=params, tx=optax.sgd(0.01))
batch = {"x": jnp.ones((32, 8)), "y": jnp.zeros((32, 5))}
for _ in range(2):
    state, loss = train_step(state, batch)
print("loss", float(loss))
