# equinox MLP with filter_jit / filter_value_and_grad; correct.
import equinox as eqx
import jax
import jax.numpy as jnp
import optax

key = jax.random.key(0)
mkey, dkey = jax.random.split(key)
model = eqx.nn.MLP(in_size=2, out_size=1, width_size=16, depth=2, key=mkey)
x = jax.random.normal(dkey, (100, 2))
y = jnp.sin(x[:, :1])
optim = optax.adam(3e-3)
opt_state = optim.init(eqx.filter(model, eqx.is_array))


@eqx.filter_jit
def make_step(model, opt_state, x, y):
    @eqx.filter_value_and_grad
    def loss(model):
        pred = jax.vmap(model)(x)
        return jnp.mean((pred - y) ** 2)

    l, grads = loss(model)
    updates, opt_state = optim.update(grads, opt_state, eqx.filter(model, eqx.is_array))
    model = eqx.apply_updates(model, updates)
    return model, opt_state, l


for i in range(100):
    model, opt_state, l = make_step(model, opt_state, x, y)
print(l)
