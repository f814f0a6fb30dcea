import haiku as hk
import jax.numpy as jnp


class MaskedPool(hk.Module):
    """Mean-pools the valid tokens, then projects."""

    def __init__(self, out_dim, name=None):
        super().__init__(name=name)
        self.out_dim = out_dim

    def __call__(self, tokens, lengths):
        max_len = lengths.max()
        positions = jnp.arange(max_len)  # expect: JAX803
        mask = positions[None, :] < lengths[:, None]
        pooled = (tokens[:, :max_len] * mask[..., None]).sum(1) / lengths[:, None]
        return hk.Linear(self.out_dim)(pooled)
