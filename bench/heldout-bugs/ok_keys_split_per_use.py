# ok: every draw gets its own key (split / fold_in / split(key, n)); split outputs used once.
import jax
import jax.numpy as jnp
import jax.random as jrandom

rng = jax.random.PRNGKey(0)
rng, _rng1, _rng2 = jax.random.split(rng, num=3)
ruleset_rng = jax.random.split(_rng1, num=4)
reset_rng = jax.random.split(_rng2, num=4)

key = jrandom.PRNGKey(0)
E1 = []
for _ in range(20):
    key, key_x, key_y = jrandom.split(key, 3)
    logits = jnp.zeros((2, 10))
    e1 = [jrandom.categorical(k, lg) for k, lg in zip((key_x, key_y), logits)]
    E1.append(e1)


def f(rng_key):
    rng_key, sub_u, sub_v = jax.random.split(rng_key, 3)
    return jax.random.normal(sub_u), jax.random.normal(sub_v), rng_key


u, v, key = f(key)
noise = [jax.random.normal(jax.random.fold_in(key, step), (2,)) for step in range(3)]
x = jrandom.uniform(ruleset_rng[0], (5,))
y = jrandom.normal(reset_rng[0], (5,))
print(len(E1), float(u - v), len(noise), x.shape, y.shape)
