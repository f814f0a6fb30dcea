# ok: the jitted flax train step reports values with `jax.debug.print` and the loss is printed
# outside jit; the waveform duration is computed on the host with `math.ceil` from Python floats
# and passed as a static size (phentax's fix).
import math
from functools import partial

import flax.linen as nn
import jax
import jax.numpy as jnp
import optax
from flax.training import train_state


class Regressor(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(5)(nn.relu(nn.Dense(16)(x)))


@jax.jit
def train_step(state, batch):
    def loss_fn(params):
        preds = state.apply_fn({"params": params}, batch["x"])
        jax.debug.print("mean prediction {}", preds.mean())
        return jnp.mean((preds - batch["y"]) ** 2)

    loss, grads = jax.value_and_grad(loss_fn)(state.params)
    return state.apply_gradients(grads=grads), loss


@partial(jax.jit, static_argnums=(1,))
def time_grid(delta_t, n_steps):
    return jnp.arange(n_steps) * delta_t


model = Regressor()
params = model.init(jax.random.PRNGKey(0), jnp.ones((1, 8)))["params"]
state = train_state.TrainState.create(apply_fn=model.apply, params=params, tx=optax.sgd(0.01))
state, loss = train_step(state, {"x": jnp.ones((4, 8)), "y": jnp.zeros((4, 5))})
print("loss", float(loss))
duration, delta_t = 12.5, 1.0
print(time_grid(delta_t, math.ceil(duration / delta_t)).shape)
