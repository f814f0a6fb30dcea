# %% [1]
import jax
import jax.numpy as jnp
# %% [2]
@jax.jit
def jacobi(A, b, tol=1e-6):
    x = jnp.zeros_like(b)
    D = jnp.diag(A)
    R = A - jnp.diag(D)
    for it in range(200):
        x_new = (b - R @ x) / D
        if jnp.linalg.norm(x_new - x) < tol:  # expect: JAX701
            return x_new
        x = x_new
    return x
# %% [3]
A = jnp.array([[4.0, 1.0], [2.0, 5.0]])
b = jnp.array([1.0, 2.0])
print(jacobi(A, b))
