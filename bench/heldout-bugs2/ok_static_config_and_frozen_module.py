# OK (no findings expected): hashable static arguments (tuples, a frozen dataclass, a
# NamedTuple) instead of lists (counterpart of ua1002_jax2813); an equinox module whose
# method runs under eqx.filter_jit (counterpart of sa402_jax28418: no mutable static
# self); a closure over a constant that is never rebound (counterpart of gr102_jax1426).
import dataclasses
from functools import partial

import equinox as eqx
import jax
import jax.numpy as jnp


@dataclasses.dataclass(frozen=True)
class Config:
    scale: float = 2.0
    offsets: tuple = (1, 2)


@partial(jax.jit, static_argnums=(1, 2))
def g(x, y, cfg):
    return cfg.scale * x + y[0] + cfg.offsets[1]


class Affine(eqx.Module):
    weight: jax.Array
    bias: jax.Array
    activation: str = eqx.field(static=True, default="tanh")

    @eqx.filter_jit
    def __call__(self, x):
        out = self.weight @ x + self.bias
        return jnp.tanh(out) if self.activation == "tanh" else out


def make_loss(a):
    def loss_sum(val):
        return jnp.sum(val[:2] ** 2 + val[2:] ** 3) * a

    return jax.jit(jax.grad(loss_sum))


print(g(1.0, (2, 3), Config()))
model = Affine(jnp.eye(2), jnp.zeros(2))
print(model(jnp.ones(2)))
grad10, grad20 = make_loss(10), make_loss(20)
print(grad10(jnp.array([2.0, 3.0, 4.0, 5.0])), grad20(jnp.array([2.0, 3.0, 4.0, 5.0])))
