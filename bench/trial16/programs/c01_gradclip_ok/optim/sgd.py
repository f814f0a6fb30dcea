import functools

import jax
import jax.numpy as jnp

from .utils import clip_by_global_norm, polynomial_features


def loss_fn(params, x, y, degree):
    pred = polynomial_features(x, degree) @ params["w"] + params["b"]
    return jnp.mean((pred - y) ** 2)


def make_step(lr):
    @functools.partial(jax.jit, static_argnames="degree")
    def step(params, x, y, degree=2):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y, degree)
        grads = clip_by_global_norm(grads)
        if degree > 3:
            lr_eff = lr / degree
        else:
            lr_eff = lr
        return jax.tree_util.tree_map(lambda p, g: p - lr_eff * g, params, grads), loss

    return step
