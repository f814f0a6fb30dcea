# Source: https://github.com/jax-ml/jax/issues/4418 ("advanced boolean indexing")
# The user built a mask with `ax1, ax2 = np_jax.where(~Dataset[:, 0].any(axis=2))` and
# index_update, and got "Array boolean indices must be concrete" inside the traced code;
# jakevdp: "the single argument version of jnp.where is not compatible with JIT ... use the
# three-argument version".
# Adapted: a 3-D Dataset so that `Dataset[:, 0].any(axis=2)` is 2-D, the update written with
# .at[] (index_update is gone), the function jitted as in the user's model.
import jax
import jax.numpy as np_jax


@jax.jit
def build_mask(Dataset):
    ax1, ax2 = np_jax.where(~Dataset[:, 0].any(axis=2))  # expect: JAX802
    mask = np_jax.ones(Dataset[:, 0].shape[:2])
    mask = mask.at[ax1, ax2].set(0)
    return mask


Dataset = np_jax.array([[[[1, 2], [0, 0]]], [[[0, 0], [0, 0]]]])
try:
    print(build_mask(Dataset))
except jax.errors.ConcretizationTypeError as err:
    print(type(err).__name__)
print(np_jax.where(~Dataset[:, 0].any(axis=2), 0, 1))
