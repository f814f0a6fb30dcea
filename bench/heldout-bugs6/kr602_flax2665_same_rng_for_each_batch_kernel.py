# Source: https://github.com/google/flax/pull/2665
# ("Use a different rng key for each batch element in DenseGeneral init")
# j-towns: the elements of a batch of params in a batched DenseGeneral were initialised to
# the same value, "because a JAX rng was being reused, without doing jax.random.split".
# The kernel initialiser drew every batch element's kernel from the one `rng`.
# Adapted (the kernel_init wrapper of DenseGeneral with batch_dims, reduced to a function;
# the fix splits rng into one key per batch element).
import jax
import jax.numpy as jnp
import numpy as np

kernel_init = jax.nn.initializers.lecun_normal()


def batched_kernel_init(rng, shape, n_batch_dims=1, dtype=jnp.float32):
    size_batch_dims = int(np.prod(shape[:n_batch_dims]))
    flat_shape = (int(np.prod(shape[n_batch_dims:-1])), shape[-1])
    kernel = jnp.stack(
        [kernel_init(rng, flat_shape, dtype) for _ in range(size_batch_dims)]  # expect: JAX602
    )
    return jnp.reshape(kernel, shape)


k = batched_kernel_init(jax.random.PRNGKey(0), (3, 4, 2))
print("batch elements identical:", bool(jnp.all(k[0] == k[1])) and bool(jnp.all(k[1] == k[2])))
