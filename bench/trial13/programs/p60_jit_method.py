# A PyTorch-like model class with a jitted forward method.
import jax
import jax.numpy as jnp


class Linear:
    def __init__(self, key, din, dout):
        self.W = jax.random.normal(key, (din, dout)) * 0.1
        self.b = jnp.zeros(dout)

    @jax.jit  # expect: JAX401
    def __call__(self, x):
        return x @ self.W + self.b


layer = Linear(jax.random.key(0), 3, 2)
print(layer(jnp.ones(3)))
