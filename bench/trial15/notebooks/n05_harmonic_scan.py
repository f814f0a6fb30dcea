# %% [1]
import jax
import jax.numpy as jnp
import numpy as np
# %% [2]
def leapfrog(carry, _):
    x, v, t = carry
    v = v - 0.5 * 0.01 * x
    x = x + 0.01 * v
    v = v - 0.5 * 0.01 * x
    return (x, v, t + 0.01), (t, x)
# %% [3]
(x_end, v_end, t_end), (ts, xs) = jax.lax.scan(leapfrog, (1.0, 0.0, 0.0), None, length=628)
# %% [4]
table = np.column_stack([np.asarray(ts), np.asarray(xs)])
print(table.shape, table[-1], float(x_end))
