# runtime: jax.errors.TracerBoolConversionError
import haiku as hk
import jax
import jax.numpy as jnp


def forward(x):
    counter = hk.get_state("counter", [], init=jnp.zeros)
    hk.set_state("counter", counter + 1)
    if x.sum() > 0:  # expect: JAX701  # clean: x = jnp.where(x.sum() > 0, -x, x)
        x = -x  # clean:
    return hk.Linear(3)(x)


model = hk.transform_with_state(forward)
params, state = jax.jit(model.init)(jax.random.key(0), jnp.ones(3))
