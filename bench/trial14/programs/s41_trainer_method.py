# A Trainer class like my torch Lightning module.
import jax
import jax.numpy as jnp


class Trainer:
    def __init__(self, lr):
        self.lr = lr
        self.w = jnp.zeros(3)

    @jax.jit  # expect: JAX401
    def step(self, x, y):
        g = jax.grad(lambda w: jnp.mean((x @ w - y) ** 2))(self.w)
        return self.w - self.lr * g

    def fit(self, x, y, epochs):
        for _ in range(epochs):
            self.w = self.step(x, y)
        return self.w


print(Trainer(0.1).fit(jnp.ones((4, 3)), jnp.ones(4), 3))
