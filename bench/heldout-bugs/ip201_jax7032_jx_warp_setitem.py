# Source: https://github.com/jax-ml/jax/issues/7032 ("Jax Numpy is not returning any result")
# A bounding-box warp ported to jax.numpy and called through jax.jit(jx_warp): the slice
# assignments `xy[:, :2] = ...` fail because JAX arrays are immutable (maintainer's answer).
# Verbatim function (indentation normalised); the call and evidence are added.
import jax
import jax.numpy as jnp


def jx_warp(boxes, M, width, height):
    n = len(boxes)
    if n:
        xy = jnp.ones((n * 4, 3))
        xy[:, :2] = boxes[:, [0, 1, 2, 3, 0, 3, 2, 1]].reshape(n * 4, 2)  # expect: JAX201
        xy = xy @ M.T
        xy = (xy[:, :2] / xy[:, 2:3]).reshape(n, 8)
        x = xy[:, [0, 2, 4, 6]]
        y = xy[:, [1, 3, 5, 7]]
        xy = jnp.concatenate((x.min(1), y.min(1), x.max(1), y.max(1))).reshape(4, n).T
        xy[:, [0, 2]] = xy[:, [0, 2]].clip(0, width)
        xy[:, [1, 3]] = xy[:, [1, 3]].clip(0, height)
        return xy.astype(jnp.float32)
    else:
        return boxes


boxes = jnp.array([[10.0, 10.0, 50.0, 40.0]])
try:
    print(jax.jit(jx_warp, static_argnums=(2, 3))(boxes, jnp.eye(3), 64, 64))
except TypeError as err:
    print("TypeError:", str(err).splitlines()[0])
