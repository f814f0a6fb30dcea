# Source: https://github.com/gchq/coreax/issues/375 ("Review randomness in SlicedScoreMatching
# _noise_conditional_loop_body", 2024)
# bk958178: in `_noise_conditional_loop_body` "the statement perturbing the inputs with Gaussian
# noise generates the same perturbation (i.e., the same set of random numbers) on each function
# call" -- the key is `random.key(0)` on every iteration of the fori_loop over noise levels.
# Adapted: coreax's SlicedScoreMatching reduced to the loop body and the jitted train step (a
# registered pytree class, fori_loop over noise scales, flax TrainState); the score network is a
# small flax.linen Dense and the sliced loss a squared norm.
from functools import partial

import jax
import jax.numpy as jnp
import optax
from flax import linen as nn
from flax.training.train_state import TrainState
from jax import jit, random, tree_util
from jax.lax import fori_loop


class SlicedScoreMatching:
    def __init__(self, num_noise_models=3):
        self.num_noise_models = num_noise_models

    def tree_flatten(self):
        return (), {"num_noise_models": self.num_noise_models}

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        return cls(**aux_data)

    def _loss(self, score_network):
        return lambda x, v: jnp.sum((score_network(x) * v) ** 2, axis=-1)

    def _noise_conditional_loop_body(self, i, obj, state, params, x, random_vectors, sigmas):
        # Perturb the inputs with Gaussian noise
        x_perturbed = x + sigmas[i] * random.normal(random.key(0), x.shape)  # expect: JAX602
        obj = (
            obj
            + sigmas[i] ** 2
            * self._loss(lambda x_: state.apply_fn({"params": params}, x_))(
                x_perturbed, random_vectors
            ).mean()
        )
        return obj

    @jit
    def _noise_conditional_train_step(self, state, x, random_vectors, sigmas):
        def loss(params):
            body = partial(
                self._noise_conditional_loop_body,
                state=state,
                params=params,
                x=x,
                random_vectors=random_vectors,
                sigmas=sigmas,
            )
            return fori_loop(0, self.num_noise_models, body, 0.0)

        val, grads = jax.value_and_grad(loss)(state.params)
        state = state.apply_gradients(grads=grads)
        return state, val


tree_util.register_pytree_node(
    SlicedScoreMatching, SlicedScoreMatching.tree_flatten, SlicedScoreMatching.tree_unflatten
)

net = nn.Dense(2)
x = jnp.ones((4, 2))
state = TrainState.create(
    apply_fn=net.apply, params=net.init(random.key(1), x)["params"], tx=optax.sgd(1e-2)
)
ssm = SlicedScoreMatching()
state, val = ssm._noise_conditional_train_step(state, x, jnp.ones((4, 2)), jnp.array([1.0, 0.5, 0.25]))
noise = [random.normal(random.key(0), x.shape) for _ in range(3)]
print("same perturbation for every noise level:", all((n == noise[0]).all() for n in noise))
