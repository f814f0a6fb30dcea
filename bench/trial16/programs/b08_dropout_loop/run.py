import flax.linen as nn
import jax
import jax.numpy as jnp

from clf import Classifier, train

x = jax.random.normal(jax.random.PRNGKey(1), (64, 20))
y = jax.random.randint(jax.random.PRNGKey(2), (64,), 0, 10)
params, loss = train(x, y, n_steps=5)
print("loss", loss)
# the dropout mask the loop uses at every step: same key => same mask
rng = jax.random.split(jax.random.PRNGKey(0))[1]
m = Classifier()
o1 = m.apply({"params": params}, x, train=True, rngs={"dropout": rng})
o2 = m.apply({"params": params}, x, train=True, rngs={"dropout": rng})  # expect: JAX602
print("same dropout mask every step:", bool(jnp.allclose(o1, o2)))
