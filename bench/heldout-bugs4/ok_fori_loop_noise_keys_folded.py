# ok: a registered pytree class whose fori_loop body folds the loop index into the key, so each
# noise level gets its own perturbation; the train step threads a flax TrainState.
from functools import partial

import jax
import jax.numpy as jnp
import optax
from flax import linen as nn
from flax.training.train_state import TrainState
from jax import jit, random, tree_util
from jax.lax import fori_loop


class NoiseConditionalMatching:
    def __init__(self, num_noise_models=3):
        self.num_noise_models = num_noise_models

    def tree_flatten(self):
        return (), {"num_noise_models": self.num_noise_models}

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        return cls(**aux_data)

    def _loop_body(self, i, obj, state, params, x, sigmas, key):
        noise_key = random.fold_in(key, i)
        x_perturbed = x + sigmas[i] * random.normal(noise_key, x.shape)
        pred = state.apply_fn({"params": params}, x_perturbed)
        return obj + sigmas[i] ** 2 * jnp.mean(pred**2)

    @jit
    def train_step(self, state, x, sigmas, key):
        def loss(params):
            body = partial(self._loop_body, state=state, params=params, x=x, sigmas=sigmas, key=key)
            return fori_loop(0, self.num_noise_models, body, 0.0)

        val, grads = jax.value_and_grad(loss)(state.params)
        return state.apply_gradients(grads=grads), val


tree_util.register_pytree_node(
    NoiseConditionalMatching,
    NoiseConditionalMatching.tree_flatten,
    NoiseConditionalMatching.tree_unflatten,
)

net = nn.Dense(2)
x = jnp.ones((4, 2))
state = TrainState.create(
    apply_fn=net.apply, params=net.init(random.key(1), x)["params"], tx=optax.sgd(1e-2)
)
key = random.key(0)
for step in range(2):
    key, subkey = random.split(key)
    state, val = NoiseConditionalMatching().train_step(state, x, jnp.array([1.0, 0.5, 0.25]), subkey)
print(val)
