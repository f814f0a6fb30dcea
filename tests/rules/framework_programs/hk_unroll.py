# runtime: jax.errors.TracerBoolConversionError
import haiku as hk
import jax
import jax.numpy as jnp


class Cell(hk.RNNCore):
    def __call__(self, x, state):
        if x.sum() > 0:  # expect: JAX701  # clean: x = jnp.where(x.sum() > 0, -x, x)
            x = -x  # clean:
        return x + state, state

    def initial_state(self, batch_size):
        return jnp.zeros(3)


def forward(xs):
    return hk.dynamic_unroll(Cell(), xs, jnp.zeros(3))


model = hk.transform(forward)
params = model.init(jax.random.key(0), jnp.ones((4, 3)))
