# Reshape to a batch size passed as an argument.
import jax
import jax.numpy as jnp


@jax.jit
def to_batches(x, batch):
    return x.reshape(batch, -1)  # expect: JAX803


print(to_batches(jnp.arange(12.0), 3))
