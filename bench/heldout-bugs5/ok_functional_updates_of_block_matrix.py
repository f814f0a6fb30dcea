# ok: block matrices filled with .at[...].set(...) and a masked replacement with jnp.where; a
# NumPy buffer is filled in place on the host.
import jax.numpy as jnp
import numpy as np


def mimo_transfer_mat(transfer_mat):
    nfreq, ndof, _ = transfer_mat.shape
    mat = jnp.zeros((ndof * nfreq, ndof * nfreq))
    for idof in range(ndof):
        for jdof in range(ndof):
            block = jnp.diag(jnp.real(transfer_mat[:, idof, jdof]))
            rows = slice(idof * nfreq, (idof + 1) * nfreq)
            cols = slice(jdof * nfreq, (jdof + 1) * nfreq)
            mat = mat.at[rows, cols].set(block)
    return mat


def get_se_delta(J, V):
    se = jnp.sqrt(jnp.sum((J @ V) * J, axis=1))
    return jnp.where(se == 0, jnp.nan, se)


host = np.zeros((2, 2))
host[0, 0] = 1.0
print(mimo_transfer_mat(jnp.ones((3, 2, 2)) * (1.0 + 0.5j)).shape)
print(get_se_delta(jnp.array([[0.0, 0.0], [1.0, 2.0]]), jnp.eye(2)))
print(host)
