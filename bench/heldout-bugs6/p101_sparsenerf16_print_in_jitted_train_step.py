# Source: https://github.com/Wanggcong/SparseNeRF/issues/16 ("How to print with JAX when debug")
# yuannj printed intermediate values in SparseNeRF's training step and got
# `Traced<ShapedArray(float32[2])>with<DynamicJaxprTrace(level=0/1)>` instead of numbers;
# the step is jitted, so print runs once, at trace time. (Wanggcong: only the loss is
# printed, in train.py, outside the step; see the JAX docs.)
# Reconstructed (a jitted train step with a depth loss in the style of SparseNeRF).
import jax
import jax.numpy as jnp


def render(params, rays):
    return jnp.tanh(rays @ params["w"]), jnp.abs(rays @ params["d"])


@jax.jit
def train_step(params, rays, rgb_gt, depth_rank):
    def loss_fn(params):
        rgb, depth = render(params, rays)
        depth_pair = depth[:2, 0]
        print("depth pair:", depth_pair)  # expect: JAX101
        rank_loss = jnp.maximum(depth_pair[0] - depth_pair[1] + 1e-4, 0.0) * depth_rank
        return jnp.mean((rgb - rgb_gt) ** 2) + rank_loss

    loss, grads = jax.value_and_grad(loss_fn)(params)
    params = jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)
    return params, loss


params = {"w": jnp.ones((3, 3)) * 0.1, "d": jnp.ones((3, 1))}
rays = jnp.arange(12.0).reshape(4, 3) / 10
for step in range(3):
    params, loss = train_step(params, rays, jnp.zeros((4, 3)), 1.0)
    print("step", step, "loss", float(loss))
