# Source: https://github.com/brentyi/egoallo/issues/17 ("Error while running inference on example
# data", EnnaSachdeva, 2025-06-05): "TypeError: Shapes must be 1D sequences of concrete values of
# integer type, got (Traced<~int32[]>with<DynamicJaxprTrace>,) ... while tracing the function
# _optimize_vmapped ... depends on the value of the argument guidance_params[12]". Field 12 of the
# `JaxGuidanceParams` pytree dataclass is `max_iters: int = 20`, a traced leaf, and the optimiser
# sizes an array with it; the fix marked it static.
# Reconstructed (the jitted `_optimize_vmapped`, the dataclass fields and the error; the solver
# call is replaced by the array it sizes, jax_dataclasses and jaxls are not installed).
import dataclasses

import jax
import jax.numpy as jnp


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class JaxGuidanceParams:
    prior_quat_weight: float = 1.0
    skate_weight: float = 30.0
    lambda_initial: float = 0.1
    max_iters: int = 20


@jax.jit
def _optimize_vmapped(body_rotmats, guidance_params):
    cost_history = jnp.zeros((guidance_params.max_iters,))  # expect: JAX803
    cost = guidance_params.skate_weight * jnp.sum(body_rotmats**2)
    return body_rotmats * guidance_params.lambda_initial, cost_history.at[0].set(cost)


try:
    _optimize_vmapped(jnp.ones((4, 3)), JaxGuidanceParams(max_iters=5))
except TypeError as err:
    print(str(err).split(".")[0])
