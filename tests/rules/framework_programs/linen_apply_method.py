# runtime: jax.errors.TracerBoolConversionError
import flax.linen as nn
import jax
import jax.numpy as jnp


class Coder(nn.Module):
    @nn.compact
    def __call__(self, x):
        return self.encode(x)

    def encode(self, x):
        if x.sum() > 0:  # expect: JAX701  # clean: x = jnp.where(x.sum() > 0, -x, x)
            x = -x  # clean:
        return x


model = Coder()
params = model.init(jax.random.key(0), jnp.ones(3))


@jax.jit
def step(params, x):
    return model.apply(params, x, method=Coder.encode)


step(params, jnp.ones(3))
