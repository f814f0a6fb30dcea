# optax chain with clipping and a schedule; correct.
import jax
import jax.numpy as jnp
import optax

schedule = optax.warmup_cosine_decay_schedule(0.0, 1e-2, 10, 100)
tx = optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(schedule))
params = {"dense": {"kernel": jnp.ones((3, 2)), "bias": jnp.zeros(2)}}
state = tx.init(params)
x = jnp.ones((8, 3))


def loss(params):
    out = x @ params["dense"]["kernel"] + params["dense"]["bias"]
    return jnp.sum(out**2)


@jax.jit
def step(params, state):
    l, g = jax.value_and_grad(loss)(params)
    updates, state = tx.update(g, state, params)
    return optax.apply_updates(params, updates), state, l


for i in range(20):
    params, state, l = step(params, state)
print(l)
