# Source: https://github.com/codestella/putting-nerf-on-a-diet/pull/11
# ("Fix invalid Jax Type on single_step")
# riven314: with the model and N_samples passed as arguments, jitting single_step raised an
# invalid-JAX-type error for the model and a ConcretizationTypeError for N_samples, which
# render_rays uses as the number of samples of np.linspace. Fix: static_argnums=[6, 7].
# Adapted (src/step_utils.py's render_rays and single_step; the haiku model is closed over
# here so that the N_samples error shows, and a small MLP stands in for the NeRF model).
import haiku as hk
import jax
import jax.numpy as np
from jax import jit, random

model = hk.without_apply_rng(hk.transform(lambda x: hk.nets.MLP([16, 4])(x)))
params = model.init(random.PRNGKey(0), np.ones((1, 3)))


def render_rays(rnd_input, params, rays, near, far, N_samples, rand=False):
    rays_o, rays_d = rays
    z_vals = np.linspace(near, far, N_samples)  # expect: JAX803
    if rand:
        z_vals += random.uniform(rnd_input, shape=list(rays_o.shape[:-1]) + [N_samples]) * (far - near) / N_samples
    pts = rays_o[..., None, :] + rays_d[..., None, :] * z_vals[..., :, None]
    raw = model.apply(params, np.reshape(pts, [-1, 3]))
    raw = np.reshape(raw, list(pts.shape[:-1]) + [4])
    weights = jax.nn.softmax(raw[..., 3], axis=-1)
    return np.sum(weights[..., None] * jax.nn.sigmoid(raw[..., :3]), -2)


def single_step_wojit(rng, image, rays, params, bds, N_samples):
    rng, rng_inputs = random.split(rng)

    def loss_model(params):
        g = render_rays(rng_inputs, params, rays, bds[0], bds[1], N_samples, rand=True)
        return np.mean((g - image) ** 2)

    model_loss, grad = jax.value_and_grad(loss_model)(params)
    new_params = jax.tree_util.tree_map(lambda p, u: p - u, params, grad)
    return rng, new_params, model_loss


single_step = jit(single_step_wojit)
rays = (np.zeros((8, 3)), np.ones((8, 3)))
image = np.zeros((8, 3))
print(single_step_wojit(random.PRNGKey(1), image, rays, params, (2.0, 6.0), 16)[2])  # eager
try:
    single_step(random.PRNGKey(1), image, rays, params, (2.0, 6.0), 16)
except jax.errors.ConcretizationTypeError as err:
    print(type(err).__name__)
