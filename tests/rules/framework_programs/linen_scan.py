# runtime: jax.errors.TracerBoolConversionError
import flax.linen as nn
import jax
import jax.numpy as jnp


class Cell(nn.Module):
    @nn.compact
    def __call__(self, carry, x):
        if x.sum() > 0:  # expect: JAX701  # clean: carry = jnp.where(x.sum() > 0, carry + 1, carry)
            carry = carry + 1  # clean:
        return carry, x


ScanCell = nn.scan(Cell, variable_broadcast="params", split_rngs={"params": False})
params = ScanCell().init(jax.random.key(0), jnp.ones(3), jnp.ones((4, 3)))
