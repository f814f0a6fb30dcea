# Source: https://github.com/jax-ml/jax/pull/689 ("improve jax.random shape error messages")
# mattjj's repro is a user's random-feature map: one PRNGKey feeds three samplers, so W, w and b
# are built from the same random bits (w equals the first column-major draws of W).
# Adapted: the user's function without @jit (under jit d and n are traced shapes, the PR's topic);
# the evidence compares w with the start of W.
import jax.numpy as np
from jax import random


def feature_map(n, d, sigma=1.0, seed=123):
  key = random.PRNGKey(seed)
  W = random.normal(key, (d, n)) / sigma
  w = random.normal(key, (d, )) / sigma  # expect: JAX602
  b = 2 * np.pi * random.uniform(key, (d, ))

  phi = lambda x, t: np.sqrt(2.0 / d) * np.cos(np.matmul(W, x) + w*t + b)
  return phi, W, w


phi, W, w = feature_map(5, 3)
print("W first draws", W.ravel()[:3])
print("w            ", w)
