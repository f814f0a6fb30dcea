# ok: a block scanned over layers whose per-layer branch is data (jnp.where / lax.cond on
# the scanned index), with Python control flow only on static configuration.
import jax
import jax.numpy as jnp


class Block:
    def __init__(self, key, debug_layer=None):
        self.weight = jax.random.normal(key, (4, 4)) * 0.1
        self.debug_layer = debug_layer

    def layer(self, x, layer_idx):
        x = x + jnp.tanh(x @ self.weight)
        if self.debug_layer is not None:
            bumped = x + 0.01 * jnp.sin(x * 1e2)
            x = jnp.where(jnp.equal(layer_idx, self.debug_layer), bumped, x)
        x = jax.lax.cond(layer_idx % 2 == 0, lambda v: v * 1.0, lambda v: v * 0.5, x)
        return x, None

    def __call__(self, x, num_layers):
        x, _ = jax.lax.scan(self.layer, x, jnp.arange(num_layers))
        return x


block = Block(jax.random.key(0), debug_layer=4)
print(jax.jit(block.__call__, static_argnums=1)(jnp.ones(4), 6))


def mandel_brot(c, max_iter):
    def body(carry, i):
        z, count = carry
        z = z * z + c
        count = jnp.where((jnp.abs(z) > 2.0) & (count == max_iter), i, count)
        return (z, count), None

    (_, count), _ = jax.lax.scan(body, (0.0 + 0.0j, max_iter), jnp.arange(1, max_iter + 1))
    return count


print(jax.jit(jax.vmap(lambda c: mandel_brot(c, 50)))(jnp.linspace(-2.0, 0.5, 5) + 0.3j))
