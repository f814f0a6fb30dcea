import jax
import jax.numpy as jnp


@jax.jit
def power_iteration(A, n_steps):
    v = jnp.ones(A.shape[0])
    for _ in range(n_steps):  # expect: JAX703
        v = A @ v
        v = v / jnp.linalg.norm(v)
    return v


print(power_iteration(jnp.array([[2.0, 0.0], [0.0, 1.0]]), 20))
