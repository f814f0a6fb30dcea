# ok: a jitted map built once per object in __init__ (not per call), a classmethod jitted
# with cls and the shape static, and a train step that logs with jax.debug.print.
from functools import partial

import jax
import jax.numpy as jnp


class FrameTransform:
    def __init__(self, rotation, offset):
        self.rotation = rotation
        self.offset = offset
        self._mapped = jax.jit(jax.vmap(lambda p, r, o: r @ p + o, in_axes=(0, None, None)))

    def point_map(self, points):
        return self._mapped(points, self.rotation, self.offset)


class Grid:
    @classmethod
    @partial(jax.jit, static_argnums=(0, 1))
    def zeros(cls, shape):
        return jnp.zeros(shape)


@jax.jit
def train_step(w, x):
    loss, g = jax.value_and_grad(lambda w: jnp.mean((x @ w) ** 2))(w)
    jax.debug.print("loss {l}", l=loss)
    return w - 0.1 * g


op = FrameTransform(jnp.eye(3), jnp.ones(3))
for _ in range(3):
    out = op.point_map(jnp.zeros((4, 3)))
print(out.shape, Grid.zeros((2, 3)).shape)
print(train_step(jnp.ones((3, 1)), jnp.ones((2, 3))).shape)
