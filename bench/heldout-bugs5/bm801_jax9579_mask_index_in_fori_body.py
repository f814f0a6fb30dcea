# Source: https://github.com/jax-ml/jax/issues/9579 ("jit-compilable \"apply mask\"-operation")
# SimiPixel's randomised cosine interpolation selects alpha[mask] inside a lax.fori_loop body,
# where mask = (i - 1) == idx depends on the loop index: NonConcreteBooleanIndexError
# (boolean mask of traced values, the result's size is unknown).
# Adapted (the report's biject_alpha body; the rest of cosInterpolateRandomized trimmed,
# dynamic_update_slice kept; try/except added).
from jax import random
import jax
import jax.numpy as jnp


def biject_alpha(idx, val):
    alpha, i, key = val
    # hyperparameters for randomisation
    cdf_bins = 20

    key, consume = random.split(key)
    samples = random.uniform(consume, (cdf_bins - 1,), maxval=1.0)
    samples = jnp.hstack((jnp.array([0.0]), samples))
    montonous = jnp.cumsum(samples)
    cdf = montonous / montonous[-1]

    # idx of first occurenece
    mask = (i - 1) == idx
    start_idx = jnp.argmax(mask)

    # biject slice
    alpha_i = alpha[mask]  # expect: JAX801
    bijected_alpha = cdf[(alpha_i // (1 / cdf_bins)).astype(int)]
    alpha = jax.lax.dynamic_update_slice(alpha, bijected_alpha, (start_idx,))
    return (alpha, i, key)


xp = jnp.linspace(0.0, 1.0, 5)
x = jnp.linspace(0.05, 0.95, 8)
i = jnp.clip(jnp.searchsorted(xp, x, side="right"), 1, len(xp) - 1)
alpha = (x - xp[i - 1]) / (xp[i] - xp[i - 1])
try:
    jax.lax.fori_loop(0, len(xp) - 1, biject_alpha, (alpha, i, random.PRNGKey(0)))
except IndexError as err:
    print(type(err).__name__)
