# Learned that jax arrays need .at, but forgot to keep the result.
import jax.numpy as jnp


def set_padding(tokens, pad_id):
    mask = jnp.zeros(tokens.shape[0], dtype=bool)
    mask.at[tokens == pad_id].set(True)  # expect: JAX203
    return mask


tokens = jnp.array([5, 3, 0, 0])
print(set_padding(tokens, 0))
