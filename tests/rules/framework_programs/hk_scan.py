# runtime: jax.errors.TracerBoolConversionError
import haiku as hk
import jax
import jax.numpy as jnp


def body(carry, x):
    if x.sum() > 0:  # expect: JAX701  # clean: x = jnp.where(x.sum() > 0, -x, x)
        x = -x  # clean:
    return carry + x, x


def forward(xs):
    return hk.scan(body, jnp.zeros(3), xs)


model = hk.transform(forward)
params = model.init(jax.random.key(0), jnp.ones((4, 3)))
