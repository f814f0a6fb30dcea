import equinox as eqx
import jax
import jax.numpy as jnp


class PositionalMLP(eqx.Module):
    mlp: eqx.nn.MLP
    n_freq: int = eqx.field(static=True)

    def __init__(self, in_size, out_size, n_freq, *, key):
        self.n_freq = n_freq
        self.mlp = eqx.nn.MLP(in_size * (2 * n_freq + 1), out_size, 64, 2, key=key)

    def __call__(self, x):
        feats = jnp.zeros((2 * self.n_freq + 1, x.shape[0]))
        feats[0] = x  # expect: JAX201
        for i in range(self.n_freq):
            feats = feats.at[2 * i + 1].set(jnp.sin(2.0**i * x))
            feats = feats.at[2 * i + 2].set(jnp.cos(2.0**i * x))
        return self.mlp(feats.reshape(-1))
