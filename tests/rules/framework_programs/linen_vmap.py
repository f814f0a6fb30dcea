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


VCell = nn.vmap(Cell, variable_axes={"params": None}, split_rngs={"params": False})
params = VCell().init(jax.random.key(0), jnp.ones((2, 3)))
