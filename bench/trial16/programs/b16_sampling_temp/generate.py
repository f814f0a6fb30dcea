import jax
import jax.numpy as jnp

from gen import sample_token, set_temperature

logits = jnp.log(jnp.array([0.5, 0.3, 0.2]))
sample = jax.jit(jax.vmap(sample_token, in_axes=(0, None)))
keys = jax.random.split(jax.random.PRNGKey(0), 2000)
print("T=1 freq of argmax:", (sample(keys, logits) == 0).mean())
set_temperature(0.01)  # greedy-ish
print("T=0.01 freq of argmax (should be ~1.0):", (sample(keys, logits) == 0).mean())
