# runtime: jax.errors.TracerBoolConversionError
import jax
import jax.numpy as jnp


class Normalizer:
    def normalize(self, x):
        if x.std() > 0:  # expect: JAX701  # clean: x = jnp.where(x.std() > 0, x / x.std(), x)
            x = x / x.std()  # clean:
        return x


class Agent:
    def __init__(self):
        self.normalizer = Normalizer()
        self.fast_step = jax.jit(self.step)

    def step(self, obs):
        return self.normalizer.normalize(obs) * 2


agent = Agent()
out = agent.fast_step(jnp.arange(3.0))
