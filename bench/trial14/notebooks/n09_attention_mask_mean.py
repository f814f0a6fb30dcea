# %% [1]
import jax
import jax.numpy as jnp
# %% [2]
@jax.jit
def masked_mean_loss(logits, targets, pad_mask):
    per_token = -jax.nn.log_softmax(logits)[jnp.arange(targets.shape[0]), targets]
    return per_token[pad_mask].mean()  # expect: JAX801
# %% [3]
logits = jnp.zeros((5, 7))
targets = jnp.array([1, 2, 3, 0, 0])
pad_mask = targets != 0
masked_mean_loss(logits, targets, pad_mask)
