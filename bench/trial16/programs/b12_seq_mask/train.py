import jax
import jax.numpy as jnp
import numpy as np

from seqlm import make_batch, masked_xent

VOCAB = 50


def init(key):
    return {"emb": jax.random.normal(key, (VOCAB, 16)) * 0.1, "out": jnp.zeros((16, VOCAB))}


@jax.jit
def loss_fn(params, batch):
    h = params["emb"][batch["tokens"]]
    logits = h @ params["out"]
    return masked_xent(logits, batch)


rng = np.random.default_rng(0)
params = init(jax.random.PRNGKey(0))
batch = make_batch(rng, vocab=VOCAB)
print(jax.grad(loss_fn)(params, batch)["out"].shape)
