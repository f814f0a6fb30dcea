# ok: the policy reshapes its actions with jax.numpy inside pmap; NumPy converts the returned
# (concrete) result after the mapped call.
import jax
import jax.numpy as jnp
import numpy as np


class Policy:
    action_shape = (2,)

    def __init__(self, weights):
        self.weights = weights

    def predict(self, observation):
        actions = jnp.tanh(observation @ self.weights)
        return jnp.reshape(actions, (-1, *self.action_shape))


def my_func(seed):
    policy = Policy(jnp.ones((3, 2)))
    return policy.predict(jnp.ones((1, 3)) * seed).sum()


out = jax.pmap(my_func)(jnp.arange(1.0))
print(np.array(out).reshape(-1))
