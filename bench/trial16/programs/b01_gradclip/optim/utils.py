"""Small tree utilities used by the optimiser."""
import jax
import jax.numpy as jnp


def global_norm(tree):
    leaves = jax.tree_util.tree_leaves(tree)
    return jnp.sqrt(sum(jnp.vdot(x, x) for x in leaves))


def clip_by_global_norm(grads, max_norm=1.0):
    norm = global_norm(grads)
    if norm > max_norm:  # expect: JAX701
        scale = max_norm / norm
        grads = jax.tree_util.tree_map(lambda g: g * scale, grads)
    return grads
