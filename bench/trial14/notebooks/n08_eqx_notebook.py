# %% [1]
import equinox as eqx
import jax
import jax.numpy as jnp
# %% [2]
class Linear(eqx.Module):
    weight: jax.Array
    bias: jax.Array

    def __init__(self, din, dout, key):
        self.weight = jax.random.normal(key, (dout, din)) * 0.1
        self.bias = jnp.zeros(dout)

    def __call__(self, x):
        return self.weight @ x + self.bias
# %% [3]
model = Linear(3, 2, jax.random.key(0))
x = jnp.ones(3)
# %% [5]
@eqx.filter_jit
def loss(model, x):
    return jnp.sum(model(x) ** 2)
# %% [6]
grads = eqx.filter_grad(loss)(model, x)
model = jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, model, grads)
loss(model, x)
