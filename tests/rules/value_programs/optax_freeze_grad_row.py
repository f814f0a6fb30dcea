# runtime: TypeError
# A PyTorch user "freezes" the first row of W by zeroing its gradient in place.
import jax
import jax.numpy as jnp
import optax


def loss_fn(params, x, y):
    pred = x @ params["w"] + params["b"]
    return jnp.mean((pred - y) ** 2)


key = jax.random.PRNGKey(0)
kx, kw = jax.random.split(key)
x = jax.random.normal(kx, (32, 3))
y = x @ jnp.array([1.0, -2.0, 0.5])
params = {"w": jax.random.normal(kw, (3,)), "b": jnp.zeros(())}
opt = optax.sgd(0.1)
opt_state = opt.init(params)

for _ in range(50):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    grads["w"][0] *= 0.0  # freeze w[0]  # expect: JAX202  # clean: grads["w"] = grads["w"].at[0].multiply(0.0)
    updates, opt_state = opt.update(grads, opt_state)
    params = optax.apply_updates(params, updates)
print("loss", loss)
