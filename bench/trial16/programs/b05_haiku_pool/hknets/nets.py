import haiku as hk
import jax

from .modules import MaskedPool


def make_forward(out_dim):
    def forward(tokens, lengths):
        return MaskedPool(out_dim)(tokens, lengths)

    return hk.without_apply_rng(hk.transform(forward))
