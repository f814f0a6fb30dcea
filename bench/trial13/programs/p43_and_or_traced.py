# Combining conditions with `and` inside jit.
import jax
import jax.numpy as jnp


@jax.jit
def in_range(x, lo, hi):
    return jnp.where((x > lo) and (x < hi), x, 0.0)  # expect: JAX702


print(in_range(jnp.array(0.5), 0.0, 1.0))
