import jax
import jax.numpy as jnp


@jax.jit
def reconstruct(params, x):
    return jnp.tanh(x @ params["enc"]) @ params["dec"] + params["b"]
