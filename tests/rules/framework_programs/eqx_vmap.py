# runtime: jax.errors.TracerBoolConversionError
import equinox as eqx
import jax
import jax.numpy as jnp


class Net(eqx.Module):
    linear: eqx.nn.Linear

    def __init__(self, key):
        self.linear = eqx.nn.Linear(3, 3, key=key)

    def __call__(self, x):
        if x.sum() > 0:  # expect: JAX701  # clean: x = jnp.where(x.sum() > 0, -x, x)
            x = -x  # clean:
        return self.linear(x)


def forward(model, x):
    return model(x)


out = eqx.filter_vmap(forward, in_axes=(None, 0))(Net(jax.random.key(0)), jnp.ones((2, 3)))
