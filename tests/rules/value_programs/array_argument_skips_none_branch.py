# runtime: jax.errors.TracerArrayConversionError
# clean runtime: check: assert normalize(jnp.eye(3)).orbitals.shape == (3, 3)
# quantax MultiDet.__init__: the orbitals are seeded with NumPy only under `if U is None`, and
# the one traced construction (`normalize`) passes `Q` of `jnp.linalg.qr`, an array, never
# None: the seeding is not traced through it, although `U` is bound again after the test.
import jax
import jax.numpy as jnp
import numpy as np


def seeded_orbitals(n):
    return np.asarray(jnp.eye(n))  # expect: JAX703


class Determinant:
    def __init__(self, n, U=None):
        if U is None:
            U = seeded_orbitals(n)
        elif U.ndim == 1:
            U = jnp.diag(U)
        self.orbitals = jnp.asarray(U)


@jax.jit
def normalize(u):
    Q, _ = jnp.linalg.qr(u)
    return Determinant(3).orbitals + Q  # clean: return Determinant(3, Q)


jax.tree_util.register_pytree_node(
    Determinant, lambda d: ((d.orbitals,), None), lambda _, c: Determinant(3, c[0])
)
print(Determinant(3).orbitals)  # eager: seeded with NumPy values
normalize(jnp.eye(3))
