import jax

from .buffer import push


def collect(buf, key, n_steps, dim):
    def body(buf, k):
        obs = jax.random.normal(k, (dim,))
        return push(buf, obs), None

    buf, _ = jax.lax.scan(body, buf, jax.random.split(key, n_steps))
    return buf
