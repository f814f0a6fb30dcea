# ok: an equinox Module reads its fields inside filter_jit (never assigns them), each layer gets
# its own split key, and validation asserts only look at static shapes.
import equinox as eqx
import jax
import jax.numpy as jnp


class MLP(eqx.Module):
    layers: list
    scale: jax.Array

    def __init__(self, sizes, key):
        keys = jax.random.split(key, len(sizes) - 1)
        self.layers = [eqx.nn.Linear(i, o, key=k) for i, o, k in zip(sizes[:-1], sizes[1:], keys)]
        self.scale = jnp.ones(())

    def __call__(self, x):
        assert x.shape[-1] == self.layers[0].in_features
        for layer in self.layers[:-1]:
            x = jax.nn.relu(layer(x))
        return self.scale * self.layers[-1](x)


@eqx.filter_jit
def loss_and_grad(model, x, y):
    return eqx.filter_value_and_grad(lambda m: jnp.mean((jax.vmap(m)(x) - y) ** 2))(model)


model = MLP([3, 8, 1], jax.random.PRNGKey(0))
loss, grads = loss_and_grad(model, jnp.ones((5, 3)), jnp.zeros((5, 1)))
print(loss, model.scale)
