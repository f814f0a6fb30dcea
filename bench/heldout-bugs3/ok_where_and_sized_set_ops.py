# ok: masks feed jnp.where; size-dependent ops get size= and fill_value= under jit.
import jax
import jax.numpy as jnp


@jax.jit
def positive_sum(thing):
    return jnp.where(thing > 0, thing, 0.0).sum()


@jax.jit
def stuff_model(age_idx, velo):
    ages_pred = jnp.unique(age_idx, size=8, fill_value=-1)
    return velo.mean() + (ages_pred >= 0).sum()


@jax.jit
def build_mask(dataset):
    return jnp.where(~dataset[:, 0].any(axis=2), 0, 1)


@jax.jit
def first_nonzero(a):
    (idx,) = jnp.nonzero(a, size=2, fill_value=0)
    return idx


thing = jnp.array([1.0, -2.0, 3.0])
print(positive_sum(thing), thing[thing > 0])
print(stuff_model(jnp.array([24, 25, 26, 6, 14, 10, 24, 25]), jnp.ones(8)))
print(build_mask(jnp.zeros((2, 1, 2, 2))), first_nonzero(jnp.array([0, 3, 0, 4])))
