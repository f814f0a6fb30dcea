# ok: the iteration count is a static field of the pytree dataclass, so it sizes the history
# array under jit; the weights stay traced leaves.
import dataclasses

import jax
import jax.numpy as jnp


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class GuidanceParams:
    skate_weight: float = 30.0
    lambda_initial: float = 0.1
    max_iters: int = dataclasses.field(default=20, metadata=dict(static=True))


@jax.jit
def optimize(body_rotmats, params):
    history = jnp.zeros((params.max_iters,))
    cost = params.skate_weight * jnp.sum(body_rotmats**2)
    return body_rotmats * params.lambda_initial, history.at[0].set(cost)


rotmats, history = optimize(jnp.ones((4, 3)), GuidanceParams(max_iters=5))
print(rotmats.shape, history.shape)
