import jax.numpy as jnp

from agents import GaussianExploration

explore = GaussianExploration(action_dim=2)
a = jnp.zeros(2)
print(explore.perturb(a), explore.perturb(a))
