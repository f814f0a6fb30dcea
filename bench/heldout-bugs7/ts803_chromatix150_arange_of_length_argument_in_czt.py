# Source: https://github.com/chromatix-team/chromatix/pull/150 ("Add chirp z transform.")
# ebezzam: the chirp z-transform "wasn't compatible with jit because this arange was a
# dynamic array", so the input length became an argument that must be marked static.
# Reconstructed (a 1-D chirp z-transform with the output length `m` as an argument; the
# arange built from it is the line the PR discusses).
import jax
import jax.numpy as jnp


def czt(x, m, w, a=1.0 + 0.0j):
    n = x.shape[-1]
    k = jnp.arange(m)  # expect: JAX803
    nn = jnp.arange(n)
    kernel = (a ** -nn)[None, :] * (w ** (k[:, None] * nn[None, :]))
    return kernel @ x


x = jnp.ones(8, dtype=jnp.complex64)
w = jnp.exp(-2j * jnp.pi / 8)
print(jnp.round(jnp.abs(czt(x, 4, w)), 3))
try:
    print(jax.jit(czt)(x, 4, w))
except Exception as err:  # ConcretizationTypeError / TypeError for the traced length
    print(type(err).__name__)
print(jnp.round(jnp.abs(jax.jit(czt, static_argnums=1)(x, 4, w)), 3))
