# %% [1]
import jax
import jax.numpy as jnp
# %% [2]
@jax.jit
def fixed_point(f_param, x0):
    x = x0
    err = jnp.inf
    while err > 1e-5:  # expect: JAX701
        new = jnp.cos(f_param * x)
        err = jnp.abs(new - x)
        x = new
    return x
# %% [3]
fixed_point(1.0, 0.5)
