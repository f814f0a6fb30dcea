# ok: a haiku model rendered through helper functions inside a jitted step whose sample
# count is static; the random jitter uses a split key; only shapes drive Python control flow.
from functools import partial

import haiku as hk
import jax
import jax.numpy as jnp

model = hk.without_apply_rng(hk.transform(lambda x: hk.nets.MLP([16, 4])(x)))
params = model.init(jax.random.PRNGKey(0), jnp.ones((1, 3)))


def sample_depths(key, near, far, n_samples, batch):
    z_vals = jnp.linspace(near, far, n_samples)
    jitter = jax.random.uniform(key, (batch, n_samples)) * (far - near) / n_samples
    return z_vals + jitter


def render_rays(key, params, rays, near, far, n_samples):
    rays_o, rays_d = rays
    z_vals = sample_depths(key, near, far, n_samples, rays_o.shape[0])
    pts = rays_o[:, None, :] + rays_d[:, None, :] * z_vals[..., None]
    raw = model.apply(params, pts.reshape(-1, 3)).reshape(pts.shape[:-1] + (4,))
    if raw.shape[-1] == 4:
        weights = jax.nn.softmax(raw[..., 3], axis=-1)
    return jnp.sum(weights[..., None] * jax.nn.sigmoid(raw[..., :3]), -2)


@partial(jax.jit, static_argnums=(5,))
def single_step(key, image, rays, params, bounds, n_samples):
    key, sub = jax.random.split(key)
    loss, grads = jax.value_and_grad(
        lambda p: jnp.mean((render_rays(sub, p, rays, bounds[0], bounds[1], n_samples) - image) ** 2)
    )(params)
    return key, jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, grads), loss


key = jax.random.PRNGKey(1)
rays = (jnp.zeros((8, 3)), jnp.ones((8, 3)))
for _ in range(2):
    key, params, loss = single_step(key, jnp.zeros((8, 3)), rays, params, (2.0, 6.0), 16)
print(float(loss))
