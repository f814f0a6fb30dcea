# Source: https://github.com/EiffL/Quarks2CosmosDataChallenge/pull/6 ("fix potential TracerIntegerConversionError in Decoder")
# IonMich: the Decoder computed a size with a JAX array; "replacing JAX array with numpy
# array, so that it is explicitely not something to be traced". Inside a jitted apply,
# a jax.numpy result is a tracer, and a reshape by it fails.
# Reconstructed (the PR gives only the description: a haiku decoder that derives the
# image side length from the latent size with jnp and reshapes by it).
import haiku as hk
import jax
import jax.numpy as jnp


class Decoder(hk.Module):
    def __init__(self, latent_size=16, name=None):
        super().__init__(name=name)
        self.latent_size = latent_size

    def __call__(self, z):
        side = jnp.sqrt(self.latent_size).astype(jnp.int32)
        h = hk.Linear(self.latent_size * 4)(z)
        return h.reshape(-1, side, side, 4)  # expect: JAX803


decoder = hk.transform(lambda z: Decoder()(z))
params = decoder.init(jax.random.key(0), jnp.ones((2, 8)))
print(decoder.apply(params, None, jnp.ones((2, 8))).shape)
try:
    print(jax.jit(decoder.apply)(params, None, jnp.ones((2, 8))).shape)
except TypeError as err:  # shapes must be concrete
    print(type(err).__name__)
