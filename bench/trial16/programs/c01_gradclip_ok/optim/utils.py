import jax
import jax.numpy as jnp


def global_norm(tree):
    return jnp.sqrt(sum(jnp.vdot(x, x) for x in jax.tree_util.tree_leaves(tree)))


def clip_by_global_norm(grads, max_norm=1.0):
    norm = global_norm(grads)
    scale = jnp.where(norm > max_norm, max_norm / norm, 1.0)
    return jax.tree_util.tree_map(lambda g: g * scale, grads)


def polynomial_features(x, degree):
    return jnp.concatenate([x**d for d in range(1, degree + 1)], axis=-1)
