# Source: https://github.com/jax-ml/jax/issues/1476 ("Print values inside a vmap function")
# From the advi.py example: printing `sample` inside the vmapped elbo shows
# "Traced<ShapedArray(float32[2])>with<BatchTrace(level=2/0)>" instead of values.
# Adapted: the advi example's elbo/batch_elbo with the user's print (numpy-as-np names kept).
from functools import partial

import jax.numpy as np
from jax import random, vmap


def diag_gaussian_sample(rng, mean, log_std):
    return mean + np.exp(log_std) * random.normal(rng, mean.shape)


def diag_gaussian_logpdf(x, mean, log_std):
    return np.sum(-0.5 * ((x - mean) / np.exp(log_std)) ** 2 - log_std - 0.5 * np.log(2 * np.pi))


def elbo(logprob, rng, mean, log_std):
    sample = diag_gaussian_sample(rng, mean, log_std)
    print(sample)  # expect: JAX101
    return logprob(sample) - diag_gaussian_logpdf(sample, mean, log_std)


def batch_elbo(logprob, rng, params, num_samples):
    rngs = random.split(rng, num_samples)
    vectorized_elbo = vmap(partial(elbo, logprob), in_axes=(0, None, None))
    return np.mean(vectorized_elbo(rngs, *params))


def target(z):
    return -0.5 * np.sum(z**2)


params = (np.zeros(2), np.zeros(2))
print("elbo:", batch_elbo(target, random.PRNGKey(0), params, 4))
