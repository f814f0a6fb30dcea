# ok: parameters stacked with jnp inside a jitted likelihood, index pairs held in a jnp array
# and indexed with the vmapped index, argmin used to index a jnp array, and interpolation
# tables converted to jnp before the vmapped lookup.
import functools

import jax
import jax.numpy as jnp
import numpy as np

NAMES = ["omega_cdm", "omega_b", "h"]
W = np.linspace(0.1, 1.0, 12).reshape(3, 4)


def predict(params):
    if isinstance(params, dict):
        params = jnp.stack([params[name] for name in NAMES], axis=-1)
    return params @ W


@jax.jit
def like(theta):
    return -0.5 * jnp.sum(predict({name: theta[i] for i, name in enumerate(NAMES)}) ** 2)


def features(x, res_map):
    pairs = jnp.array([[j, i] for j in range(res_map.shape[0] - 1) for i in range(res_map.shape[1] - 1)])
    res_map = jnp.asarray(res_map)

    def inner(n):
        j, i = pairs[n]
        return x[res_map[j, i], 1:3] + x[res_map[j, i + 1], 1:3]

    return jax.vmap(inner)(jnp.arange(pairs.shape[0]))


@jax.jit
def nearest_distance(descr, bank):
    d = 1.0 - bank @ descr / (jnp.linalg.norm(bank, axis=1) * jnp.linalg.norm(descr))
    return d[jnp.argmin(d)]


@functools.partial(jax.vmap, in_axes=(0, None, None))
def interp(x, xp, fp):
    ind = jnp.clip(jnp.searchsorted(xp, x), 1, xp.shape[0] - 1)
    return fp[ind - 1] + (x - xp[ind - 1]) * (fp[ind] - fp[ind - 1]) / (xp[ind] - xp[ind - 1])


print(like(jnp.array([0.12, 0.02, 0.7])))
print(features(jnp.arange(24.0).reshape(6, 4), np.array([[0, 1, 2], [3, 4, 5]])).shape)
print(nearest_distance(jnp.ones(4), jnp.eye(4)))
xp = jnp.asarray(np.array([0.0, 1.0, 2.0]))
print(interp(jnp.array([0.5, 1.5]), xp, xp))
