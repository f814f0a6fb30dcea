import haiku as hk
import jax
import jax.numpy as jnp


class MaskedPool(hk.Module):
    def __init__(self, out_dim, dropout=0.1, name=None):
        super().__init__(name=name)
        self.out_dim = out_dim
        self.dropout = dropout

    def __call__(self, tokens, lengths, is_training):
        positions = jnp.arange(tokens.shape[1])
        mask = positions[None, :] < lengths[:, None]
        pooled = jnp.where(mask[..., None], tokens, 0.0).sum(1) / lengths[:, None]
        if is_training:
            pooled = hk.dropout(hk.next_rng_key(), self.dropout, pooled)
        return hk.Linear(self.out_dim)(pooled)
