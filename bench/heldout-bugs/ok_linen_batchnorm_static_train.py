# ok: flax linen module with a `train` flag that is static under jit; `not train` on a Python
# bool; batch stats updated through mutable=.
from functools import partial

import jax
import jax.numpy as jnp
import flax.linen as nn


class Net(nn.Module):
    @nn.compact
    def __call__(self, x, train: bool):
        x = nn.Dense(8)(x)
        x = nn.BatchNorm(use_running_average=not train)(x)
        x = nn.Dropout(0.1, deterministic=not train)(x)
        return nn.Dense(1)(x)


model = Net()
variables = model.init(jax.random.PRNGKey(0), jnp.ones((4, 3)), train=False)


@partial(jax.jit, static_argnames=("train",))
def forward(variables, x, key, train):
    if train:
        out, updates = model.apply(variables, x, train=True, mutable=["batch_stats"], rngs={"dropout": key})
        return out, updates["batch_stats"]
    return model.apply(variables, x, train=False), variables["batch_stats"]


out, stats = forward(variables, jnp.ones((4, 3)), jax.random.PRNGKey(1), train=True)
out_eval, _ = forward(variables, jnp.ones((4, 3)), jax.random.PRNGKey(2), train=False)
print(out.shape, out_eval.shape)
