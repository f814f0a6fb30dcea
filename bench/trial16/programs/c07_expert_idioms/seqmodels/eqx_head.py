import equinox as eqx
import jax
import jax.numpy as jnp


class Head(eqx.Module):
    layers: list
    n_out: int = eqx.field(static=True)
    use_norm: bool = eqx.field(static=True)

    def __init__(self, d_in, n_out, depth, *, key, use_norm=True):
        keys = jax.random.split(key, depth)
        self.layers = [eqx.nn.Linear(d_in, d_in, key=k) for k in keys[:-1]] + [eqx.nn.Linear(d_in, n_out, key=keys[-1])]
        self.n_out = n_out
        self.use_norm = use_norm

    def __call__(self, x):
        if self.use_norm:
            x = (x - x.mean()) / (x.std() + 1e-6)
        for layer in self.layers[:-1]:
            x = jax.nn.gelu(layer(x))
        out = self.layers[-1](x)
        return out[: self.n_out]
