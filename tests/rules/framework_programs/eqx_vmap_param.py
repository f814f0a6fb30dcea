# runtime: jax.errors.TracerArrayConversionError
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np


class Net(eqx.Module):
    linear: eqx.nn.Linear

    def __init__(self, key):
        self.linear = eqx.nn.Linear(3, 1, key=key)

    def __call__(self, x):
        x = x / np.linalg.norm(x)  # expect: JAX703  # clean: x = x / jnp.linalg.norm(x)
        return self.linear(x)[0]


@eqx.filter_jit
def loss(model, x, y):
    def loss_fn(m):
        pred = eqx.filter_vmap(m)(x)
        return jnp.mean((pred - y) ** 2)

    return eqx.filter_value_and_grad(loss_fn)(model)


loss(Net(jax.random.key(0)), jnp.ones((4, 3)), jnp.ones(4))
