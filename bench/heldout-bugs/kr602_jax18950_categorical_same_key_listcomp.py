# Source: https://github.com/jax-ml/jax/issues/18950 ("Independent Categorical Sampling")
# Two independent categoricals X, Y sampled with `[jrandom.categorical(key, logits) for logits
# in joint_logits]`: both draws use the same key, so they share the same Gumbel noise and are
# not independent. Verbatim loop (matplotlib plotting replaced by a correlation print).
import jax.numpy as jnp
import jax.random as jrandom

n = 10
key_X = jrandom.PRNGKey(120)
key_Y = jrandom.PRNGKey(845)
logits_X = jrandom.uniform(key_X, shape=(n,))
logits_Y = jrandom.uniform(key_Y, shape=(n,))

joint_logits = jnp.array([logits_X, logits_Y])

E1 = []
key = jrandom.PRNGKey(0)
n_s = 200
for _ in range(n_s):
    e1 = [jrandom.categorical(key, logits) for logits in joint_logits]  # expect: JAX602
    E1.append(e1)
    key, subkey = jrandom.split(key)

E1 = jnp.array(E1)
print("P(X == Y) with the shared key:", float(jnp.mean(E1[:, 0] == E1[:, 1])), "(independent ~0.1)")
