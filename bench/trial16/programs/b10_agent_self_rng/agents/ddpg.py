import jax
import jax.numpy as jnp


class GaussianExploration:
    def __init__(self, action_dim, sigma=0.2, seed=0):
        self.action_dim = action_dim
        self.sigma = sigma
        self.rng = jax.random.PRNGKey(seed)

    def perturb(self, action):
        noise = self.sigma * jax.random.normal(self.rng, (self.action_dim,))  # expect: JAX602
        return jnp.clip(action + noise, -1.0, 1.0)
