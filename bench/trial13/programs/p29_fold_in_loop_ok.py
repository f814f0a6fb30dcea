# fold_in with the step number; correct.
import jax
import jax.numpy as jnp

base = jax.random.key(7)
vals = []
for step in range(3):
    k = jax.random.fold_in(base, step)
    vals.append(jax.random.bernoulli(k, 0.5, (4,)))
print(jnp.stack(vals).astype(jnp.int32))
