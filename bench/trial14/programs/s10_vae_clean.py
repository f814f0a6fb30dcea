import jax
import jax.numpy as jnp


def reparam(key, mu, logvar):
    eps = jax.random.normal(key, mu.shape)
    return mu + jnp.exp(0.5 * logvar) * eps


@jax.jit
def elbo(params, x, key):
    k_eps, k_drop = jax.random.split(key)
    h = jnp.tanh(x @ params["enc"])
    mu, logvar = jnp.split(h, 2, axis=-1)
    z = reparam(k_eps, mu, logvar)
    keep = jax.random.bernoulli(k_drop, 0.9, z.shape)
    z = jnp.where(keep, z / 0.9, 0.0)
    recon = jax.nn.sigmoid(z @ params["dec"])
    kl = -0.5 * jnp.sum(1 + logvar - mu**2 - jnp.exp(logvar))
    return jnp.sum((recon - x) ** 2) + kl


key = jax.random.key(1)
params = {"enc": jnp.full((6, 4), 0.1), "dec": jnp.full((2, 6), 0.1)}
for epoch in range(3):
    key, sub = jax.random.split(key)
    print(epoch, elbo(params, jnp.ones((5, 6)), sub))
