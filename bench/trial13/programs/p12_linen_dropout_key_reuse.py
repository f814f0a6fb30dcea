# Dropout rng: the same key every step, so the same dropout mask every step.
# JAX602 covers keys consumed by `apply(..., rngs=)`, so this line is expected.
import jax
import jax.numpy as jnp
import flax.linen as nn
import optax


class Model(nn.Module):
    @nn.compact
    def __call__(self, x, train: bool):
        x = nn.Dense(8)(x)
        x = nn.Dropout(0.5, deterministic=not train)(x)
        return nn.Dense(1)(x)


key = jax.random.key(42)
model = Model()
params = model.init(key, jnp.ones((1, 4)), train=False)["params"]
tx = optax.sgd(0.01)
opt_state = tx.init(params)
x = jnp.ones((8, 4))
dropout_key = jax.random.key(1)


@jax.jit
def step(params, opt_state, dropout_key):
    def loss_fn(p):
        out = model.apply({"params": p}, x, train=True, rngs={"dropout": dropout_key})
        return jnp.mean(out**2)

    loss, g = jax.value_and_grad(loss_fn)(params)
    u, opt_state = tx.update(g, opt_state)
    return optax.apply_updates(params, u), opt_state, loss


for i in range(3):
    params, opt_state, loss = step(params, opt_state, dropout_key)  # expect: JAX602
print(loss)
