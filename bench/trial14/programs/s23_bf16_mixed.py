# Mixed precision: params in float32, compute in bfloat16, loss in float32.
import jax
import jax.numpy as jnp


def cast(tree, dtype):
    return jax.tree_util.tree_map(lambda a: a.astype(dtype), tree)


@jax.jit
def loss_fn(params, x, y):
    p16 = cast(params, jnp.bfloat16)
    h = jax.nn.relu(x.astype(jnp.bfloat16) @ p16["w1"])
    out = (h @ p16["w2"]).astype(jnp.float32)
    return jnp.mean((out - y) ** 2)


params = {"w1": jnp.full((4, 8), 0.1), "w2": jnp.full((8, 1), 0.1)}
grads = jax.grad(loss_fn)(params, jnp.ones((3, 4)), jnp.zeros((3, 1)))
print(jax.tree_util.tree_map(lambda g: g.dtype, grads))
