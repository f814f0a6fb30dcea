# ok: sizes used as shapes are static arguments or NumPy/Python values computed on the
# host (static_argnums, np.sqrt of a config value, x.shape), never traced values.
import functools

import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np


@functools.partial(jax.jit, static_argnums=3)
def coo_matvec(data, row, col, nrows, v):
    dv = data * v[col]
    return jnp.zeros(nrows, dtype=dv.dtype).at[row].add(dv)


print(coo_matvec(jnp.ones(3), jnp.array([0, 1, 2]), jnp.array([2, 1, 0]), 3, jnp.ones(3)))


@functools.partial(jax.jit, static_argnames=("n_rob",))
def compute_x(P, sol, n_rob):
    return jnp.dot(P, sol.reshape(n_rob, P.shape[1]).T).T


print(compute_x(jnp.ones((5, 3)), jnp.arange(6.0), n_rob=2).shape)


@functools.partial(jax.jit, static_argnums=1)
def czt(x, m, w):
    k = jnp.arange(m)
    nn = jnp.arange(x.shape[-1])
    return (w ** (k[:, None] * nn[None, :])) @ x


print(czt(jnp.ones(8, dtype=jnp.complex64), 4, jnp.exp(-2j * jnp.pi / 8)).shape)


class Decoder(hk.Module):
    def __call__(self, z, latent_size=16):
        side = int(np.sqrt(latent_size))
        return hk.Linear(latent_size * 4)(z).reshape(-1, side, side, 4)


decoder = hk.transform(lambda z: Decoder()(z))
params = decoder.init(jax.random.key(0), jnp.ones((2, 8)))
print(jax.jit(decoder.apply)(params, None, jnp.ones((2, 8))).shape)
