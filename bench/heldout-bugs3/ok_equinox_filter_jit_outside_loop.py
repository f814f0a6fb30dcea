# ok: equinox model with filter_jit/filter_grad built once; the Python loop only calls it.
import equinox as eqx
import jax
import jax.numpy as jnp
import optax

model = eqx.nn.MLP(3, 1, 8, 2, key=jax.random.PRNGKey(0))
optim = optax.sgd(1e-2)
opt_state = optim.init(eqx.filter(model, eqx.is_array))


@eqx.filter_jit
def make_step(model, opt_state, x, y):
    def loss(model):
        return jnp.mean((jax.vmap(model)(x) - y) ** 2)

    value, grads = eqx.filter_value_and_grad(loss)(model)
    updates, opt_state = optim.update(grads, opt_state, eqx.filter(model, eqx.is_array))
    model = eqx.apply_updates(model, updates)
    return model, opt_state, value


step = jax.jit(lambda v: v * 2.0)
x = jnp.ones((16, 3))
y = jnp.zeros((16, 1))
for _ in range(3):
    model, opt_state, value = make_step(model, opt_state, x, y)
    doubled = step(value)
print(value, doubled)
