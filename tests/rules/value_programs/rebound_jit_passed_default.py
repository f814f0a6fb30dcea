# runtime: jax.errors.TracerBoolConversionError
# clean runtime: check: assert float(out[0]) == 1.0
import jax
import jax.numpy as jnp


def forward(x, training=True):  # clean: def forward(x, training=True):
    if training:  # expect: JAX701  # clean: return jnp.where(training, x * 2.0, x)
        return x * 2.0  # clean:
    return x  # clean:


forward = jax.jit(forward)
out = forward(jnp.ones(3), False)
