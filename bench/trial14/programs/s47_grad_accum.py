import jax
import jax.numpy as jnp


def loss_fn(params, x):
    return jnp.mean((x @ params["w"] + params["b"]) ** 2)


grad_fn = jax.jit(jax.grad(loss_fn))
params = {"w": jnp.ones((3, 1)), "b": jnp.zeros(1)}
micro = [jnp.ones((2, 3)) * i for i in range(4)]
accum = jax.tree_util.tree_map(jnp.zeros_like, params)
for xb in micro:
    g = grad_fn(params, xb)
    accum = jax.tree_util.tree_map(lambda a, b: a + b / len(micro), accum, g)
params = jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, accum)
print(params["w"].ravel())
