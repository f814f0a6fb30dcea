import jax.numpy as jnp
import optax


def masked_xent(logits, batch):
    xent = optax.softmax_cross_entropy_with_integer_labels(logits, batch["targets"])
    mask = batch["mask"]
    return jnp.where(mask, xent, 0.0).sum() / jnp.maximum(mask.sum(), 1)


def first_padding_positions(mask, max_items):
    (rows,) = jnp.nonzero(~mask[:, -1], size=max_items, fill_value=-1)
    return rows
