import jax
import jax.numpy as jnp

from vae import sample_prior_and_posterior

mu = jnp.zeros(3)
logvar = jnp.zeros(3)
zp, zq = sample_prior_and_posterior(jax.random.PRNGKey(0), mu, logvar)
print(zp, zq, "identical:", bool(jnp.allclose(zp, zq)))
