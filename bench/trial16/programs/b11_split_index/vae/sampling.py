import jax
import jax.numpy as jnp


def reparameterize(key, mu, logvar):
    return mu + jnp.exp(0.5 * logvar) * jax.random.normal(key, mu.shape)


def sample_prior_and_posterior(key, mu, logvar):
    keys = jax.random.split(key)
    z_post = reparameterize(keys[1], mu, logvar)
    z_prior = jax.random.normal(keys[2], mu.shape)  # expect: JAX301
    return z_post, z_prior
