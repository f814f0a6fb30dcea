# runtime: jax.errors.TracerBoolConversionError
import haiku as hk
import jax
import jax.numpy as jnp


def forward(x):
    if x.sum() > 0:  # expect: JAX701  # clean: x = jnp.where(x.sum() > 0, -x, x)
        x = -x  # clean:
    return hk.Linear(3)(x)


model = hk.without_apply_rng(hk.transform(forward))
params = model.init(jax.random.key(0), jnp.ones(3))
out = jax.jit(model.apply)(params, jnp.ones(3))
