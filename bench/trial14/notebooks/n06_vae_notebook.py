# %% [1]
import jax
import jax.numpy as jnp
import optax
# %% [2]
def init(key):
    k1, k2 = jax.random.split(key)
    return {"enc": jax.random.normal(k1, (8, 4)) * 0.1, "dec": jax.random.normal(k2, (2, 8)) * 0.1}


def loss_fn(params, x, key):
    h = x @ params["enc"]
    mu, logvar = h[:, :2], h[:, 2:]
    z = mu + jnp.exp(0.5 * logvar) * jax.random.normal(key, mu.shape)
    recon = z @ params["dec"]
    return jnp.mean((recon - x) ** 2) - 0.5 * jnp.mean(1 + logvar - mu**2 - jnp.exp(logvar))
# %% [4]
@jax.jit
def step(params, opt_state, x, key):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, key)
    updates, opt_state = tx.update(grads, opt_state)
    return optax.apply_updates(params, updates), opt_state, loss
# %% [3]
key = jax.random.key(0)
params = init(jax.random.key(1))
tx = optax.adam(1e-3)
opt_state = tx.init(params)
# %% [5]
x = jax.random.uniform(key, (32, 8))
for epoch in range(5):
    params, opt_state, loss = step(params, opt_state, x, key)  # expect: JAX602
    print(epoch, loss)
