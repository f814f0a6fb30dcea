import jax
import jax.numpy as jnp


@jax.jit
def init_hidden(batch_size, hidden):
    return jnp.zeros((batch_size, hidden))  # expect: JAX803


print(init_hidden(4, 8).shape)
