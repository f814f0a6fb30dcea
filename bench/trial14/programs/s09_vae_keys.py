# VAE reparameterisation with dropout; one key per step like torch's global RNG.
import jax
import jax.numpy as jnp


def encode(params, x):
    h = jnp.tanh(x @ params["enc"])
    return h[:, :2], h[:, 2:]


def decode(params, z):
    return jax.nn.sigmoid(z @ params["dec"])


def vae_loss(params, x, key):
    mu, logvar = encode(params, x)
    eps = jax.random.normal(key, mu.shape)
    z = mu + jnp.exp(0.5 * logvar) * eps
    keep = jax.random.bernoulli(key, 0.9, z.shape)  # expect: JAX602
    z = jnp.where(keep, z / 0.9, 0.0)
    recon = decode(params, z)
    kl = -0.5 * jnp.sum(1 + logvar - mu**2 - jnp.exp(logvar))
    return jnp.sum((recon - x) ** 2) + kl


key = jax.random.key(0)
k1, k2, k3 = jax.random.split(key, 3)
params = {"enc": jax.random.normal(k1, (6, 4)) * 0.1, "dec": jax.random.normal(k2, (2, 6)) * 0.1}
x = jax.random.uniform(k3, (8, 6))
print(jax.jit(jax.value_and_grad(vae_loss))(params, x, key)[0])
