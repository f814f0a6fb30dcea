import equinox as eqx
import jax
import jax.numpy as jnp
import optax


class Model(eqx.Module):
    layers: list

    def __init__(self, key):
        k1, k2 = jax.random.split(key)
        self.layers = [eqx.nn.Linear(2, 16, key=k1), eqx.nn.Linear(16, 1, key=k2)]

    def __call__(self, x):
        x = jax.nn.tanh(self.layers[0](x))
        return self.layers[1](x)


@eqx.filter_value_and_grad
def loss_fn(model, x, y):
    pred = jax.vmap(model)(x)
    return jnp.mean((pred - y) ** 2)


@eqx.filter_jit
def make_step(model, opt_state, x, y):
    loss, grads = loss_fn(model, x, y)
    updates, opt_state = optim.update(grads, opt_state, eqx.filter(model, eqx.is_array))
    model = eqx.apply_updates(model, updates)
    return loss, model, opt_state


model = Model(jax.random.key(42))
optim = optax.adam(1e-2)
opt_state = optim.init(eqx.filter(model, eqx.is_array))
x = jnp.linspace(-1, 1, 32).reshape(16, 2)
y = jnp.sin(x.sum(axis=1, keepdims=True))
for step in range(20):
    loss, model, opt_state = make_step(model, opt_state, x, y)
print(loss.item())
