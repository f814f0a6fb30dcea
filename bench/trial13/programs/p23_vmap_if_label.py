# Per-example loss with a Python branch on the label under vmap.
import jax
import jax.numpy as jnp


def hinge(w, x, y):
    margin = y * jnp.dot(w, x)
    if margin < 1:  # expect: JAX701
        return 1 - margin
    return 0.0


w = jnp.array([0.3, -0.2])
X = jnp.array([[1.0, 2.0], [2.0, 1.0]])
Y = jnp.array([1.0, -1.0])
print(jax.vmap(hinge, in_axes=(None, 0, 0))(w, X, Y))
