# ok: every sampler gets its own key (counterparts of the key-reuse reports).
import jax
import jax.numpy as jnp
from jax import random


def feature_map(n, d, sigma=1.0, seed=123):
    key = random.PRNGKey(seed)
    key_w, key_v, key_b = random.split(key, 3)
    W = random.normal(key_w, (d, n)) / sigma
    w = random.normal(key_v, (d,)) / sigma
    b = 2 * jnp.pi * random.uniform(key_b, (d,))
    return W, w, b


def student_t(key, df, shape=()):
    key_n, key_g = random.split(key)
    n = random.normal(key_n, shape)
    half_df = df / 2.0
    g = random.gamma(key_g, half_df, shape)
    return n * jnp.sqrt(half_df / g)


key = random.PRNGKey(1337)
key, k1, k2 = random.split(key, 3)
s1 = random.multivariate_normal(k1, jnp.array([0.0]), jnp.eye(1), shape=(10000,))
s2 = random.multivariate_normal(k2, s1, jnp.eye(1))
print(jnp.cov(s2, rowvar=False))
print(feature_map(5, 3)[1])
print(jnp.var(student_t(key, 5.0, (20000,))))
