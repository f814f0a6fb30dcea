import jax
from jax.nn import initializers

glorot = initializers.glorot_normal()


def init_autoencoder(key, in_dim, code_dim):
    enc_key, bias_key = jax.random.split(key)
    return {
        "enc": glorot(enc_key, (in_dim, code_dim)),
        "dec": glorot(enc_key, (code_dim, in_dim)),  # expect: JAX602
        "b": initializers.zeros(bias_key, (in_dim,)),
    }
