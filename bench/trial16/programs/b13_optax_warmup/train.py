import jax
import jax.numpy as jnp
import optax

from lib import build_optimizer

cfg = {"lr": 1e-3, "warmup": 100}
params = {"w": jnp.ones((3, 3))}
tx = build_optimizer(cfg)
opt_state = tx.init(params)


@jax.jit
def update(params, opt_state, batch):
    grads = jax.grad(lambda p: jnp.sum((batch @ p["w"]) ** 2))(params)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state


params, opt_state = update(params, opt_state, jnp.ones((2, 3)))
print(params["w"][0])
