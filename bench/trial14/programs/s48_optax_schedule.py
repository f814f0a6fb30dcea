import jax
import jax.numpy as jnp
import optax

schedule = optax.warmup_cosine_decay_schedule(0.0, 1e-2, 5, 50)
tx = optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(schedule, weight_decay=1e-4))
params = {"w": jnp.ones(4)}
opt_state = tx.init(params)


@jax.jit
def step(params, opt_state, x):
    loss, grads = jax.value_and_grad(lambda p: jnp.sum((p["w"] * x) ** 2))(params)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss


history = []
for i in range(10):
    params, opt_state, loss = step(params, opt_state, jnp.ones(4))
    history.append(loss.item())
print(f"final loss {history[-1]:.4f}")
