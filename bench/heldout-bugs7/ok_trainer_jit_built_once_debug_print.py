# ok: a trainer that builds its jitted step once in __init__, a model created with
# hashable static arguments (a tuple of kwargs items), and jax.debug.print in the loss.
import functools

import flax.linen as nn
import jax
import jax.numpy as jnp
import optax


def loss_fn(params, x, y):
    loss = jnp.mean((x @ params["w"] + params["b"] - y) ** 2)
    jax.debug.print("loss {}", loss)
    return loss


class Trainer:
    def __init__(self, params, learning_rate=0.1):
        self.params = params
        self.optimizer = optax.sgd(learning_rate)
        self.opt_state = self.optimizer.init(params)
        self._grad_fn = jax.jit(jax.value_and_grad(loss_fn))

    def training_step(self, x, y):
        loss, grads = self._grad_fn(self.params, x, y)
        updates, self.opt_state = self.optimizer.update(grads, self.opt_state)
        self.params = optax.apply_updates(self.params, updates)
        return loss


trainer = Trainer({"w": jnp.zeros((3, 1)), "b": jnp.zeros(1)})
for _ in range(2):
    trainer.training_step(jnp.ones((8, 3)), jnp.ones((8, 1)))


class Encoder(nn.Module):
    vocab_size: int

    @nn.compact
    def __call__(self, tokens):
        return nn.Dense(10)(jnp.mean(nn.Embed(self.vocab_size, 16)(tokens), axis=1))


@functools.partial(jax.jit, static_argnums=(1, 2))
def create_model(key, input_shape, model_items):
    return Encoder(**dict(model_items)).init(key, jnp.ones(input_shape, jnp.int32))


variables = create_model(jax.random.key(0), (4, 32), (("vocab_size", 14),))
print(jax.tree_util.tree_map(jnp.shape, variables)["params"]["Dense_0"]["kernel"])
