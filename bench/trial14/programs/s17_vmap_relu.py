# Per-example function, then vmap over the batch like a for loop in torch.
import jax
import jax.numpy as jnp


def leaky(x, slope=0.01):
    if x > 0:  # expect: JAX701
        return x
    return slope * x


batch = jnp.array([-1.0, 0.5, 2.0])
print(jax.vmap(leaky)(batch))
