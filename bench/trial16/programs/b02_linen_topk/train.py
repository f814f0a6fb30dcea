import jax
import jax.numpy as jnp
import optax

from sparsenet import SparseMLP

model = SparseMLP(features=[32, 32, 1])
key = jax.random.PRNGKey(0)
k_init, k_data = jax.random.split(key)
x = jax.random.normal(k_data, (16, 4))
y = jnp.sum(x, axis=1, keepdims=True)
params = model.init(k_init, x)
tx = optax.adam(1e-3)
opt_state = tx.init(params)


@jax.jit
def train_step(params, opt_state, x, y):
    def loss_fn(p):
        return jnp.mean((model.apply(p, x) - y) ** 2)

    loss, grads = jax.value_and_grad(loss_fn)(params)
    updates, opt_state = tx.update(grads, opt_state)
    return optax.apply_updates(params, updates), opt_state, loss


for _ in range(3):
    params, opt_state, loss = train_step(params, opt_state, x, y)
print(loss)
