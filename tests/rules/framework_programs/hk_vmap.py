# runtime: jax.errors.TracerBoolConversionError
import haiku as hk
import jax
import jax.numpy as jnp


def row(x):
    if x.sum() > 0:  # expect: JAX701  # clean: x = jnp.where(x.sum() > 0, -x, x)
        x = -x  # clean:
    return x


def forward(xs):
    return hk.vmap(row, split_rng=False)(xs)


model = hk.transform(forward)
params = model.init(jax.random.key(0), jnp.ones((4, 3)))
