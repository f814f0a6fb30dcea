import jax.numpy as jnp
import optax


def masked_xent(logits, batch):
    xent = optax.softmax_cross_entropy_with_integer_labels(logits, batch["targets"])
    return xent[batch["mask"]].mean()  # expect: JAX801
