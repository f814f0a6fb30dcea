# Source: https://openillumi.com/?p=112250 (also at
# https://openillumi.com/en/en-fix-jax-pmap-conversion-error; retelling of a Stack Overflow
# question). Training two sbx SAC agents in parallel with `pmap(lambda _: my_func())(jnp.arange(2))`
# failed with TracerArrayConversionError at sbx's `policies.py` line 58, `actions =
# np.array(actions).reshape((-1, *self.action_space.shape))`: inside pmap the actions the
# policy computed are tracers, and NumPy converts them.
# Reconstructed (the failing line and the call chain predict -> pmap from the retelling; the
# policy and environment are small stand-ins, sbx and gym are not installed).
import jax
import jax.numpy as jnp
import numpy as np


class Policy:
    action_shape = (2,)

    def __init__(self, weights):
        self.weights = weights

    def predict(self, observation):
        actions = jnp.tanh(observation @ self.weights)
        actions = np.array(actions).reshape((-1, *self.action_shape))  # expect: JAX703
        return actions


def my_func(seed):
    policy = Policy(jnp.ones((3, 2)))
    observation = jnp.ones((1, 3)) * seed
    return policy.predict(observation).sum()


print(my_func(1.0))
try:
    print(jax.pmap(my_func)(jnp.arange(1.0)))
except jax.errors.TracerArrayConversionError as err:
    print(type(err).__name__)
