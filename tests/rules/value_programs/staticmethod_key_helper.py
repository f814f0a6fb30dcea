# runtime: check: assert bool(p[0, 0] == q[0, 0])  # both drawn from rng_key
# clean runtime: check: assert not bool(p[0, 0] == q[0, 0])
# dopamine #189: the noise helper is a staticmethod called through its class; handing it
# the same key twice draws the same numbers.
import jax


class NoisyNetwork:
    def __init__(self, rng_key):
        self.rng_key = rng_key

    @staticmethod
    def sample_noise(key, shape):
        return jax.random.normal(key, shape)

    def noise(self, features):
        p = NoisyNetwork.sample_noise(self.rng_key, [4, 1])  # clean: rng_p, rng_q = jax.random.split(self.rng_key); p = NoisyNetwork.sample_noise(rng_p, [4, 1])
        q = NoisyNetwork.sample_noise(self.rng_key, [1, features])  # expect: JAX602  # clean: q = NoisyNetwork.sample_noise(rng_q, [1, features])
        return p, q


p, q = NoisyNetwork(jax.random.PRNGKey(1)).noise(3)
