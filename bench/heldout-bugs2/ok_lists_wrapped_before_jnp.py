# OK (no findings expected): Python lists turned into arrays before jax.numpy reductions
# and ufuncs (counterparts of lr501_jax3038 and lr501_jax365); functions that take
# sequences by design (stack, concatenate, array); Python sum over a list of arrays.
import jax.numpy as jnp

x = [jnp.ones((), dtype=jnp.float32), jnp.ones((), dtype=jnp.float32)]
print(jnp.mean(jnp.stack(x)), jnp.sum(jnp.asarray(x)), sum(x))
print(jnp.sin(jnp.array([0.2, 0.4])))
print(jnp.concatenate([jnp.zeros(2), jnp.ones(1)]))
grads = [jnp.ones(3), jnp.full(3, 2.0)]
total_norm = jnp.linalg.norm(jnp.array([jnp.linalg.norm(g.ravel()) for g in grads]))
print(total_norm)
