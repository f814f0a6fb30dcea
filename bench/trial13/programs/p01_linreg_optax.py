# Linear regression with optax, the way the tutorial shows it. Correct.
import jax
import jax.numpy as jnp
import optax

key = jax.random.key(0)
kx, kw = jax.random.split(key)
X = jax.random.normal(kx, (128, 3))
true_w = jnp.array([1.0, -2.0, 0.5])
y = X @ true_w

params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
opt = optax.adam(1e-1)
opt_state = opt.init(params)


def loss_fn(params, X, y):
    pred = X @ params["w"] + params["b"]
    return jnp.mean((pred - y) ** 2)


@jax.jit
def step(params, opt_state, X, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, X, y)
    updates, opt_state = opt.update(grads, opt_state, params)
    params = optax.apply_updates(params, updates)
    return params, opt_state, loss


for i in range(200):
    params, opt_state, loss = step(params, opt_state, X, y)
print("final loss", loss, params["w"])
