# ok: the bound method is jitted once, in __init__, and the loop calls the cached function; a
# module-level jitted helper is reused in the loop.
import jax
import jax.numpy as jnp


class Sampler:
    def __init__(self, shape):
        self.shape = shape
        self.do = jax.jit(self.do)

    def do(self, key):
        return jax.random.uniform(key, self.shape)


@jax.jit
def normalise(x):
    return x / jnp.sum(x)


sampler = Sampler((2, 3))
key = jax.random.PRNGKey(42)
for _ in range(3):
    key, subkey = jax.random.split(key)
    print(normalise(sampler.do(subkey)).sum())
