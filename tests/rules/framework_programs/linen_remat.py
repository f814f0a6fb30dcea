# runtime: jax.errors.TracerBoolConversionError
import flax.linen as nn
import jax
import jax.numpy as jnp


class Cell(nn.Module):
    @nn.compact
    def __call__(self, x):
        if x.sum() > 0:  # expect: JAX701  # clean: x = jnp.where(x.sum() > 0, -x, x)
            x = -x  # clean:
        return nn.Dense(3)(x)


class Net(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.remat(Cell)()(x)


params = Net().init(jax.random.key(0), jnp.ones(3))
