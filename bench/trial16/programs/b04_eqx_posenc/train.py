import equinox as eqx
import jax
import jax.numpy as jnp

from eqxnets import PositionalMLP

key = jax.random.PRNGKey(42)
mkey, dkey = jax.random.split(key)
model = PositionalMLP(2, 1, n_freq=4, key=mkey)


@eqx.filter_jit
def loss(model, xs, ys):
    preds = eqx.filter_vmap(model)(xs)
    return jnp.mean((preds - ys) ** 2)


xs = jax.random.uniform(dkey, (32, 2))
ys = jnp.sin(xs.sum(-1, keepdims=True))
print(eqx.filter_value_and_grad(loss)(model, xs, ys)[0])
