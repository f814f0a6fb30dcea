# runtime: jax.errors.TracerBoolConversionError
# clean runtime: check: assert abs(float(out[0][0]) - 0.942265) < 1e-5
import jax
import jax.numpy as jnp
import optax

opt = optax.sgd(0.1)


def loss_fn(p, x):
    return jnp.sum((x * p) ** 2)


@jax.jit
def step(p, state, x):
    g = jax.grad(loss_fn)(p, x)
    gnorm = optax.global_norm(g)  # an optax function of tracers computes a tracer
    if gnorm > 1.0:  # expect: JAX701  # clean: g = jax.tree_util.tree_map(lambda t: jnp.where(gnorm > 1.0, t / gnorm, t), g)
        g = jax.tree_util.tree_map(lambda t: t / gnorm, g)  # clean:
    updates, state = opt.update(g, state)
    return optax.apply_updates(p, updates), state


p = jnp.ones(3)
out = step(p, opt.init(p), jnp.ones(3) * 5)
