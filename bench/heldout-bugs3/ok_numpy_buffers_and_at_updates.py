# ok: NumPy buffers are filled in place, then handed to JAX; JAX arrays are updated with .at.
import numpy
import numpy as np
import jax.numpy as jnp


def grid_2d_slim_via_mask_from(mask_2d, pixel_scales):
    total = int(numpy.sum(~mask_2d))
    grid_slim = numpy.zeros(shape=(total, 2))
    centres = ((mask_2d.shape[0] - 1) / 2, (mask_2d.shape[1] - 1) / 2)
    index = 0
    for y in range(mask_2d.shape[0]):
        for x in range(mask_2d.shape[1]):
            if not mask_2d[y, x]:
                grid_slim[index, 0] = -(y - centres[0]) * pixel_scales[0]
                grid_slim[index, 1] = (x - centres[1]) * pixel_scales[1]
                index += 1
    return jnp.asarray(grid_slim)


a = jnp.zeros(5)
indx = jnp.array([1, 2])
val = jnp.array([10.0, 3.0])
a = a.at[indx].set(val)
b = np.zeros(5)
b[[1, 2]] = [10.0, 3.0]
b[0] += 1.0
mask = numpy.array([[True, False], [False, False]])
print(a, b, grid_2d_slim_via_mask_from(mask, (1.0, 1.0)))
