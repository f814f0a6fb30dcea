import jax
import jax.numpy as jnp
from flax import nnx


class Block(nnx.Module):
    def __init__(self, d, heads, rngs: nnx.Rngs):
        self.attn = nnx.MultiHeadAttention(heads, d, decode=False, rngs=rngs)
        self.ln1 = nnx.LayerNorm(d, rngs=rngs)
        self.ln2 = nnx.LayerNorm(d, rngs=rngs)
        self.mlp = nnx.Sequential(nnx.Linear(d, 4 * d, rngs=rngs), nnx.gelu, nnx.Linear(4 * d, d, rngs=rngs))

    def __call__(self, x, pad_mask):
        seq = x.shape[1]
        causal = nnx.make_causal_mask(jnp.ones((x.shape[0], seq)))
        mask = nnx.combine_masks(causal, nnx.make_attention_mask(pad_mask, pad_mask))
        x = x + self.attn(self.ln1(x), mask=mask)
        return x + self.mlp(self.ln2(x))


block = Block(16, 4, nnx.Rngs(0))
x = jnp.ones((2, 6, 16))
pad = jnp.array([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1]], dtype=bool)
out = nnx.jit(lambda b, x, m: b(x, m))(block, x, pad)
print(out.shape, jnp.isfinite(out).all())
