# runtime: jax.errors.TracerBoolConversionError
import jax
import jax.numpy as jnp
import optax


def warmup(peak, steps):
    def schedule(count):
        if count < steps:  # expect: JAX701  # clean: return jnp.where(count < steps, peak * count / steps, peak)
            return peak * count / steps  # clean:
        return peak  # clean:

    return schedule


def make_optimizer():
    learning_rate = warmup(1e-3, 100)
    return optax.chain(optax.clip(1.0), optax.adamw(learning_rate=learning_rate))


tx = make_optimizer()


@jax.jit
def step(params, grads, opt_state):
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state


params = jnp.ones(3)
step(params, jnp.ones(3), tx.init(params))
