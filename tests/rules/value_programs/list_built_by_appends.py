# runtime: TypeError
# clean runtime: check: assert float(params[0]["b"][0]) == 0.5
import itertools

import jax.numpy as jnp


def init_params(sizes):
    params = []
    for din, dout in itertools.pairwise(sizes):
        params.append({"w": jnp.zeros((din, dout)), "b": jnp.zeros(dout)})
    return params


params = init_params([2, 3, 1])
params[0]["b"][0] = 0.5  # expect: JAX201  # clean: params[0]["b"] = params[0]["b"].at[0].set(0.5)
