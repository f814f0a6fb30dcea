# Mean of positive entries with a boolean mask inside jit.
import jax
import jax.numpy as jnp


@jax.jit
def positive_mean(x):
    return x[x > 0].mean()  # expect: JAX801


print(positive_mean(jnp.array([-1.0, 2.0, 4.0])))
