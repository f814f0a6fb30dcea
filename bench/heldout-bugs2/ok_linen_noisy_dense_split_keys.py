# OK (no findings expected): a flax.linen noisy layer that splits its key before the two
# noise draws (counterpart of kr602_dopamine189), static helpers, jnp.where on a Python
# flag, and jax.jit(model.apply).
import jax
import jax.numpy as jnp
import numpy as onp
from flax import linen as nn


class NoisyDense(nn.Module):
    rng_key: jax.Array
    features: int

    @staticmethod
    def sample_noise(key, shape):
        return jax.random.normal(key, shape)

    @staticmethod
    def f(x):
        return jnp.sign(x) * jnp.sqrt(jnp.abs(x))

    @nn.compact
    def __call__(self, x, bias=True):
        rng_p, rng_q = jax.random.split(self.rng_key, num=2)
        p = NoisyDense.sample_noise(rng_p, [x.shape[-1], 1])
        q = NoisyDense.sample_noise(rng_q, [1, self.features])
        w_epsilon = NoisyDense.f(p) * NoisyDense.f(q)
        w_mu = self.param("kernel_mu", nn.initializers.lecun_normal(), (x.shape[-1], self.features))
        w_sigma = self.param("kernel_sigma", nn.initializers.constant(0.1 / onp.sqrt(x.shape[-1])), (x.shape[-1], self.features))
        ret = x @ (w_mu + w_sigma * w_epsilon)
        b = self.param("bias", nn.initializers.zeros, (self.features,))
        return jnp.where(bias, ret + b, ret)


key_net, key_init = jax.random.split(jax.random.PRNGKey(1))
layer = NoisyDense(rng_key=key_net, features=3)
params = layer.init(key_init, jnp.zeros((4, 10)))
apply = jax.jit(layer.apply)
print(apply(params, jnp.ones((4, 10))).shape)
