# Source: https://github.com/jax-ml/jax/issues/19887
# ("Traced<ShapedArray(float32[])>with<JVPTrace(level=2/1)>")
# The user printed an intermediate value inside the loss of a NeRF model trained with
# value_and_grad under jit, and got a JVPTrace / DynamicJaxprTrace dump instead of
# numbers (the printed name, `max_reflection_encoding`, came from a `_reduce_max`).
# Reconstructed: only the printed output was posted; a small flax.linen NerfModel and
# jitted train step are written around it, keeping the printed name.
import jax
import jax.numpy as jnp
import optax
from flax import linen as nn


class NerfModel(nn.Module):
    @nn.compact
    def __call__(self, x):
        h = nn.relu(nn.Dense(32)(x))
        return nn.Dense(20)(h)


model = NerfModel()
tx = optax.adam(1e-3)


def loss_fn(params, batch, target):
    out = model.apply(params, batch)
    max_reflection_encoding = jnp.max(out * target) / out.size
    print(max_reflection_encoding, "max_reflection_encoding")  # expect: JAX101
    return jnp.mean((out - target) ** 2) + max_reflection_encoding


@jax.jit
def train_step(params, opt_state, batch, target):
    loss, grads = jax.value_and_grad(loss_fn)(params, batch, target)
    updates, opt_state = tx.update(grads, opt_state)
    return optax.apply_updates(params, updates), opt_state, loss


batch = jnp.ones((64, 3))
target = jnp.ones((64, 20))
params = model.init(jax.random.PRNGKey(0), batch)
opt_state = tx.init(params)
for _ in range(2):
    params, opt_state, loss = train_step(params, opt_state, batch, target)
print("loss", float(loss))
