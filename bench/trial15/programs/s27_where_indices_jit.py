# Indices of grid points inside the classically allowed region.
import jax
import jax.numpy as jnp


@jax.jit
def allowed_region(V, E):
    idx = jnp.where(V < E)  # expect: JAX802
    return idx[0].min(), idx[0].max()


x = jnp.linspace(-3, 3, 61)
print(allowed_region(0.5 * x**2, 1.0))
