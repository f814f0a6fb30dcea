import jax
import jax.numpy as jnp


@jax.jit
def active_units(h):
    (idx,) = jnp.nonzero(h > 0)  # expect: JAX802
    return idx


print(active_units(jnp.array([-1.0, 2.0, 0.0, 3.0])))
