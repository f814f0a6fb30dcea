# Source: https://github.com/sandialabs/WecOptTool/issues/427 ("mimo_transfer_mat is
# jax/autograd illegal")
# While moving WecOptTool to JAX, the maintainers found that mimo_transfer_mat fills its block
# matrix by index assignment, which JAX arrays refuse ("JAX arrays are immutable and do not
# support in-place item assignment"); the fix is .at[...].set(...).
# Reconstructed (the issue links the line without quoting it; the function follows the
# documented contract: state [X0, Re(X1), Im(X1), ...], one 2x2 block per frequency).
import jax.numpy as jnp


def mimo_transfer_mat(transfer_mat):
    nfreq, ndof, _ = transfer_mat.shape
    ncomp = 2 * nfreq - 1
    mat = jnp.zeros((ndof * ncomp, ndof * ncomp))
    for idof in range(ndof):
        for jdof in range(ndof):
            Zp = transfer_mat[:, idof, jdof]
            block = jnp.zeros((ncomp, ncomp))
            block = block.at[0, 0].set(jnp.real(Zp[0]))
            for k in range(1, nfreq):
                re, im = jnp.real(Zp[k]), jnp.imag(Zp[k])
                r = 2 * k - 1
                block = block.at[r : r + 2, r : r + 2].set(jnp.array([[re, -im], [im, re]]))
            rows = slice(idof * ncomp, (idof + 1) * ncomp)
            cols = slice(jdof * ncomp, (jdof + 1) * ncomp)
            mat[rows, cols] = block  # expect: JAX201
    return mat


impedance = jnp.ones((3, 2, 2)) * (1.0 + 0.5j)
try:
    print(mimo_transfer_mat(impedance).shape)
except TypeError as err:
    print(type(err).__name__, str(err)[:45])
