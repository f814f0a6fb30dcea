# Source: https://github.com/google/dopamine/issues/189 ("NoisyNets implementation issues")
# "The same rng_key is used each time noise is generated meaning that no 'new' noise is
# generated each time an input is passed to the layer." In NoisyNetwork.__call__ the
# factorised noise vectors p and q were both drawn from self.rng_key through the
# static helper sample_noise; the fix split rng_key into rng_p, rng_q. No error: p and q
# start with the same numbers, and every call sees the same noise.
# Reconstructed: dopamine's NoisyNetwork (flax.linen) as it was before the fix (the
# helper, f, mu/sigma init and the output computation kept; gin and the eval branch
# dropped). The evidence compares the first entries of p and q.
import jax
import jax.numpy as jnp
import numpy as onp
from flax import linen as nn


class NoisyNetwork(nn.Module):
    rng_key: jax.Array
    eval_mode: bool = False

    @staticmethod
    def sample_noise(key, shape):
        return jax.random.normal(key, shape)

    @staticmethod
    def f(x):
        # See (10) and (11) in Fortunato et al. (2018).
        return jnp.multiply(jnp.sign(x), jnp.power(jnp.abs(x), 0.5))

    @nn.compact
    def __call__(self, x, features, bias=True):
        def mu_init(key, shape):
            low = -1 / jnp.power(x.shape[0], 0.5)
            high = 1 / jnp.power(x.shape[0], 0.5)
            return jax.random.uniform(key, minval=low, maxval=high, shape=shape)

        def sigma_init(key, shape, dtype=jnp.float32):
            return jnp.ones(shape, dtype) * (0.1 / onp.sqrt(x.shape[0]))

        p = NoisyNetwork.sample_noise(self.rng_key, [x.shape[0], 1])
        q = NoisyNetwork.sample_noise(self.rng_key, [1, features])  # expect: JAX602
        self.sow("intermediates", "p", p)
        self.sow("intermediates", "q", q)
        f_p = NoisyNetwork.f(p)
        f_q = NoisyNetwork.f(q)
        w_epsilon = f_p * f_q
        b_epsilon = jnp.squeeze(f_q)

        w_mu = self.param("kernel_mu", mu_init, (x.shape[0], features))
        w_sigma = self.param("kernel_sigma", sigma_init, (x.shape[0], features))
        w = w_mu + jnp.multiply(w_sigma, w_epsilon)
        ret = jnp.matmul(x, w)

        b_mu = self.param("bias_mu", mu_init, (features,))
        b_sigma = self.param("bias_sigma", sigma_init, (features,))
        b = b_mu + jnp.multiply(b_sigma, b_epsilon)
        return jnp.where(bias, ret + b, ret)


rng = jax.random.PRNGKey(1)
rng, rng_net_def, rng_net_param = jax.random.split(rng, num=3)
net_def = NoisyNetwork(rng_key=rng_net_def)
net_params = net_def.init(rng_net_param, x=onp.zeros(10), features=3)
_, state = net_def.apply(net_params, x=onp.ones(10), features=3, mutable=["intermediates"])
p = state["intermediates"]["p"][0]
q = state["intermediates"]["q"][0]
print("p[0,0] == q[0,0]:", bool(p[0, 0] == q[0, 0]), float(p[0, 0]), float(q[0, 0]))
