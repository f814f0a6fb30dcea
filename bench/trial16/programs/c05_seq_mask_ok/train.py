import functools

import jax
import jax.numpy as jnp
import numpy as np

from seqlm import make_batch, masked_xent
from seqlm.losses import first_padding_positions

VOCAB = 50


def init(key):
    k_emb, k_out = jax.random.split(key)
    return {"emb": jax.random.normal(k_emb, (VOCAB, 16)) * 0.1, "out": jax.random.normal(k_out, (16, VOCAB)) * 0.1}


@functools.partial(jax.jit, static_argnames=("n_pad_rows",))
def loss_fn(params, batch, n_pad_rows=4):
    h = params["emb"][batch["tokens"]]
    logits = h @ params["out"]
    rows = first_padding_positions(batch["mask"], n_pad_rows)
    return masked_xent(logits, batch) + 0.0 * rows.sum()


rng = np.random.default_rng(0)
params = init(jax.random.PRNGKey(0))
batch = make_batch(rng, vocab=VOCAB)
batch["mask"][0, 0] = True  # NumPy batch, built on the host
print(jax.grad(loss_fn)(params, batch)["out"].shape)
