# Source: https://github.com/marin-community/haliax/issues/57 ("better stack trace for concretization inside scan")
# A transformer block is scanned over layers (`scan(self.foo, ...)`); inside the block the
# user adds a debugging branch for one layer with `if jnp.equal(layer_idx.array, 4):`.
# The layer index is a scanned operand, so the comparison is traced and the `if` raises
# ConcretizationTypeError (a TracerBoolConversionError today) while tracing the scan body.
# Reconstructed (haliax's NamedArray and the attention/MLP sublayers are replaced by a plain
# block class with one dense layer; the branch and its condition are the report's).
import jax
import jax.numpy as jnp


class Block:
    def __init__(self, key):
        self.weight = jax.random.normal(key, (4, 4)) * 0.1

    def layer(self, x, layer_idx):
        x = x + jnp.tanh(x @ self.weight)
        if jnp.equal(layer_idx, 4):  # expect: JAX701
            x = x + 0.01 * jnp.sin(x * 1e2)
        return x, None

    def __call__(self, x, num_layers):
        x, _ = jax.lax.scan(self.layer, x, jnp.arange(num_layers))
        return x


block = Block(jax.random.key(0))
try:
    print(block(jnp.ones(4), 6))
except jax.errors.ConcretizationTypeError as err:
    print(type(err).__name__)
