# Manual SGD with tree_map over a nested params dict; correct.
import jax
import jax.numpy as jnp

params = {"layer1": {"w": jnp.ones((2, 2)), "b": jnp.zeros(2)}, "layer2": {"w": jnp.ones((2, 1))}}


def forward(params, x):
    h = jnp.tanh(x @ params["layer1"]["w"] + params["layer1"]["b"])
    return h @ params["layer2"]["w"]


@jax.jit
def sgd(params, x, y, lr=0.1):
    grads = jax.grad(lambda p: jnp.mean((forward(p, x) - y) ** 2))(params)
    return jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)


x = jnp.ones((4, 2))
y = jnp.zeros((4, 1))
for _ in range(10):
    params = sgd(params, x, y)
print(jax.tree_util.tree_map(jnp.shape, params))
