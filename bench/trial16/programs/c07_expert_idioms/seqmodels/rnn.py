import flax.linen as nn
import jax.numpy as jnp


class Cell(nn.Module):
    hidden: int
    rate: float = 0.1

    @nn.compact
    def __call__(self, carry, x, deterministic: bool = True):
        h = nn.tanh(nn.Dense(self.hidden)(jnp.concatenate([carry, x], -1)))
        h = nn.Dropout(self.rate)(h, deterministic=deterministic)
        return h, h


class StackedRNN(nn.Module):
    hidden: int
    n_layers: int = 2

    @nn.compact
    def __call__(self, xs, deterministic: bool = True):
        ScanCell = nn.scan(
            Cell, variable_broadcast="params", split_rngs={"params": False, "dropout": True},
            in_axes=(1, nn.broadcast), out_axes=1,
        )
        for i in range(self.n_layers):
            carry = jnp.zeros((xs.shape[0], self.hidden))
            _, xs = ScanCell(self.hidden, name=f"layer_{i}")(carry, xs, deterministic)
        return xs
