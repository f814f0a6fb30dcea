# Source: https://github.com/PyAutoLabs/PyAutoArray/pull/127 ("Adjust numpy to jax.numpy imports
# for files used for the MGE Sersic")
# PyAutoArray swapped numpy for jax.numpy wholesale; grid_2d_slim_via_mask_from kept NumPy-style
# in-place writes `grid_slim[index, 0] = ...`, which fail on JAX arrays, so the PR added
# `if use_jax: grid_slim = grid_slim.at[index, 0].set(...)` branches.
# Adapted: the function body of that time with np = jax.numpy (as the PR's numpy_wrapper does);
# the mask is a small NumPy bool array.
import numpy
import jax.numpy as np


def grid_2d_slim_via_mask_from(mask_2d, pixel_scales, origin=(0.0, 0.0)):
    total_sub_pixels = int(numpy.sum(~mask_2d))
    grid_slim = np.zeros(shape=(total_sub_pixels, 2))
    centres_scaled = ((mask_2d.shape[0] - 1) / 2 - origin[0], (mask_2d.shape[1] - 1) / 2 + origin[1])
    index = 0
    for y in range(mask_2d.shape[0]):
        for x in range(mask_2d.shape[1]):
            if not mask_2d[y, x]:
                grid_slim[index, 0] = -(y - centres_scaled[0]) * pixel_scales[0]  # expect: JAX201
                grid_slim[index, 1] = (x - centres_scaled[1]) * pixel_scales[1]
                index += 1
    return grid_slim


mask = numpy.array([[True, False, True], [False, False, False], [True, False, True]])
try:
    print(grid_2d_slim_via_mask_from(mask, (1.0, 1.0)))
except TypeError as err:
    print("TypeError:", str(err)[:60])
