# ok: .at updates whose results are returned, parameters updated by building a new list,
# one key per batch element for a batched initialiser, and a wavefront object rebuilt
# (not mutated) by a jitted function that returns it.
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def transform(a):
    for i in range(a.size):
        a = a.at[i].set(2 * (2 * (a[i] + 1) + 1))
    return a


def sgd(params, grads, lr):
    return [p - lr * g for p, g in zip(params, grads)]


def batched_kernel_init(rng, shape):
    keys = jax.random.split(rng, shape[0])
    return jax.vmap(lambda k: jax.nn.initializers.lecun_normal()(k, shape[1:]))(keys)


class Wavefront:
    def __init__(self, field):
        self.field = field


jax.tree_util.register_pytree_node(Wavefront, lambda w: ((w.field,), None), lambda _, c: Wavefront(*c))


@jax.jit
def normalize(wf):
    return Wavefront(wf.field / jnp.sqrt(jnp.sum(jnp.abs(wf.field) ** 2)))


x = transform(jnp.arange(10))
params = sgd([jnp.ones(2), jnp.ones(3)], [jnp.ones(2), jnp.ones(3)], 0.1)
k = batched_kernel_init(jax.random.PRNGKey(0), (3, 4, 2))
wf = normalize(Wavefront(jnp.ones((4, 4), dtype=jnp.complex64)))
print(int(x.sum()), float(params[0][0]), bool(jnp.all(k[0] == k[1])), float(jnp.sum(jnp.abs(wf.field) ** 2)))
print(np.asarray(x)[:3])
