import flax.linen as nn
import jax
import optax
from flax.training import train_state


class MLP(nn.Module):
    hidden: int
    out: int

    @nn.compact
    def __call__(self, x):
        x = nn.tanh(nn.Dense(self.hidden)(x))
        x = nn.tanh(nn.Dense(self.hidden)(x))
        return nn.Dense(self.out)(x)


def create_train_states(rng, obs_dim, n_actions, lr=3e-4):
    actor = MLP(64, n_actions)
    critic = MLP(64, 1)
    dummy = jax.numpy.zeros((1, obs_dim))
    actor_params = actor.init(rng, dummy)
    critic_params = critic.init(rng, dummy)  # expect: JAX602
    return (
        train_state.TrainState.create(apply_fn=actor.apply, params=actor_params, tx=optax.adam(lr)),
        train_state.TrainState.create(apply_fn=critic.apply, params=critic_params, tx=optax.adam(lr)),
    )
