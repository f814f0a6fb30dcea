# runtime: jax.errors.TracerBoolConversionError
import equinox as eqx
import jax
import jax.numpy as jnp


class Layer(eqx.Module):
    linear: eqx.nn.Linear

    def __init__(self, key):
        self.linear = eqx.nn.Linear(3, 3, key=key)

    def __call__(self, x):
        if x.sum() > 0:  # expect: JAX701  # clean: x = jnp.where(x.sum() > 0, -x, x)
            x = -x  # clean:
        return self.linear(x)


class Net(eqx.Module):
    layers: list

    def __init__(self, key):
        self.layers = [Layer(k) for k in jax.random.split(key, 2)]

    def __call__(self, x):
        total = jnp.zeros(3)
        for layer in self.layers:
            total = total + layer(x)
        return total


@eqx.filter_jit
def grads(model, x):
    return model(x)


g = grads(Net(jax.random.key(0)), jnp.ones(3))
