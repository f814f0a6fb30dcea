# Source: https://github.com/jax-ml/jax/issues/4409 ("Compile error on updating to
# JAX-0.2.0")
# `depth = jnp.log2(num_clusters) + 1; depth = depth.astype(jnp.int_)` then
# `keys = random.split(key, num_splittings)` with num_splittings = 2 ** (depth - 1) - 1:
# under jit depth is a tracer, so split's count is not concrete. mattjj: "anything you
# want evaluated at trace-time should use the original numpy".
# Reconstructed: the lines quoted in the issue, inside a jitted sampler step with a
# stand-in sampler_state (the full jaxns code was attached as a log only).
from typing import NamedTuple

import jax
import jax.numpy as jnp
from jax import random


class SamplerState(NamedTuple):
    mu: jax.Array


@jax.jit
def recluster(key, sampler_state):
    num_clusters = sampler_state.mu.shape[0]  # 2^(depth-1)
    depth = jnp.log2(num_clusters) + 1
    depth = depth.astype(jnp.int32)
    num_splittings = 2 ** (depth - 1) - 1
    keys = random.split(key, num_splittings)  # expect: JAX803
    return keys


try:
    print(recluster(random.PRNGKey(0), SamplerState(jnp.zeros((8, 2)))).shape)
except Exception as e:
    print(type(e).__name__)
