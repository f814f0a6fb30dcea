# Sum of bound-state energies (the negative ones), jitted.
import jax
import jax.numpy as jnp


@jax.jit
def bound_energy(H):
    E = jnp.linalg.eigvalsh(H)
    return E[E < 0].sum()  # expect: JAX801


H = jnp.diag(jnp.array([-2.0, -1.0, 0.5, 1.0])) + 0.1
print(bound_energy(H))
