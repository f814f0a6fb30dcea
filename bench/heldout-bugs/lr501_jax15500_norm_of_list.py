# Source: https://github.com/jax-ml/jax/issues/15500 ("differentially_private_sgd.py got TypeError")
# "From total_grad_norm: TypeError: jnp.linalg.norm requires ndarray or scalar arguments, got
# <class 'list'> at position 0." The example built the norm from a list of per-leaf norms.
# Adapted: the example's clipped_grad helper (stax params replaced by a small pytree).
import jax.numpy as jnp
from jax.tree_util import tree_flatten, tree_unflatten


def clipped_grad(grads, l2_norm_clip):
    nonempty_grads, tree_def = tree_flatten(grads)
    total_grad_norm = jnp.linalg.norm([jnp.linalg.norm(neg.ravel()) for neg in nonempty_grads])  # expect: JAX501
    divisor = jnp.maximum(total_grad_norm / l2_norm_clip, 1.0)
    normalized_nonempty_grads = [g / divisor for g in nonempty_grads]
    return tree_unflatten(tree_def, normalized_nonempty_grads)


grads = {"w": jnp.ones((3, 2)), "b": jnp.ones(2)}
try:
    print(clipped_grad(grads, 1.0)["b"])
except TypeError as err:
    print("TypeError:", str(err).splitlines()[0])
