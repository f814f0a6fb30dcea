# runtime: jax.errors.TracerBoolConversionError
import flax.linen as nn
import jax
import jax.numpy as jnp
import optax
from flax.training.train_state import TrainState


class CNN(nn.Module):
    @nn.compact
    def __call__(self, x):
        if x.max() > 10:  # expect: JAX701  # clean: x = jnp.where(x.max() > 10, x / 10, x)
            x = x / 10  # clean:
        return nn.Dense(2)(x)


@jax.jit
def train_step(state, x):
    def loss_fn(params):
        return state.apply_fn({"params": params}, x).sum()

    grads = jax.grad(loss_fn)(state.params)
    return state.apply_gradients(grads=grads)


params = CNN().init(jax.random.key(0), jnp.ones(3))["params"]
state = TrainState.create(apply_fn=CNN().apply, params=params, tx=optax.sgd(0.1))
state = train_step(state, jnp.ones(3))
