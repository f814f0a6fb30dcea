# runtime: jax.errors.TracerBoolConversionError
import jax
import jax.numpy as jnp
import optax


def init_fn(params):
    return optax.EmptyState()


def update_fn(updates, state, params=None):
    if jnp.linalg.norm(updates) > 1.0:  # expect: JAX701  # clean: updates = jnp.where(jnp.linalg.norm(updates) > 1.0, updates / 2, updates)
        updates = updates / 2  # clean:
    return updates, state


tx = optax.GradientTransformation(init_fn, update_fn)


@jax.jit
def step(params, grads, opt_state):
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state


params = jnp.ones(3)
step(params, jnp.ones(3), tx.init(params))
