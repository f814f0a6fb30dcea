# Post-training int8 quantisation of activations, same as my torch code.
import jax.numpy as jnp


def quantize(x, scale):
    return (x / scale).astype(jnp.int8)  # expect: JAX903


acts = jnp.array([0.5, 1.0, 2.0, 300.0])
print(quantize(acts, 1.0))
