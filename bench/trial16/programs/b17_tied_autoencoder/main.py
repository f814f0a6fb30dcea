import jax
import jax.numpy as jnp

from ae import init_autoencoder, reconstruct

p = init_autoencoder(jax.random.PRNGKey(0), 6, 6)
print("decoder == encoder at init:", bool(jnp.allclose(p["enc"], p["dec"])))
print(reconstruct(p, jnp.ones((1, 6))).shape)
