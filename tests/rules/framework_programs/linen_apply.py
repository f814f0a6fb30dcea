# runtime: jax.errors.TracerBoolConversionError
import flax.linen as nn
import jax
import jax.numpy as jnp


class Block(nn.Module):
    def setup(self):
        self.dense = nn.Dense(3)

    def __call__(self, x):
        if x.sum() > 0:  # expect: JAX701  # clean: x = jnp.where(x.sum() > 0, -x, x)
            x = -x  # clean:
        return self.dense(x)


model = Block()
params = model.init(jax.random.key(0), jnp.ones(3))
out = jax.jit(model.apply)(params, jnp.ones(3))
