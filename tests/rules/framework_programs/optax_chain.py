# runtime: jax.errors.ConcretizationTypeError
import jax
import jax.numpy as jnp
import optax


def scale_by_norm():
    def init_fn(params):
        return optax.EmptyState()

    def update_fn(updates, state, params=None):
        norm = float(jnp.linalg.norm(updates))  # expect: JAX703  # clean: norm = jnp.linalg.norm(updates)
        return updates / (norm + 1.0), state

    return optax.GradientTransformation(init_fn, update_fn)


def make_optimizer(lr):
    return optax.chain(scale_by_norm(), optax.sgd(lr))


tx = make_optimizer(0.1)


@jax.jit
def step(params, grads, opt_state):
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state


params = jnp.ones(3)
step(params, jnp.ones(3), tx.init(params))
