import haiku as hk

from .modules import MaskedPool


def make_forward(out_dim):
    def forward(tokens, lengths, is_training):
        return MaskedPool(out_dim)(tokens, lengths, is_training)

    return hk.transform(forward)
