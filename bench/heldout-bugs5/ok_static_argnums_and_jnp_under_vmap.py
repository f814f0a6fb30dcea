# ok: argnums chosen outside the trace from NumPy indices (host side), jnp.vdot under vmap, and
# NumPy used only on concrete host data.
import jax
import jax.numpy as jnp
import numpy as np


def f(x, y):
    return 2 * x + 3 * y


inp = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
grad_indices = np.array([0, 0, 1, 0, 1])
grads = [jax.grad(f, argnums=int(grad_indices[i]))(inp[i], inp[i]) for i in range(5)]
print(grads)

m1 = np.array([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]])
b = np.array([1.0, 2.0, 3.0])
vv = lambda x, y: jnp.vdot(x, y)
print(jax.vmap(vv, (0, None), 0)(m1, b))
print(np.vdot(m1[0], b))
