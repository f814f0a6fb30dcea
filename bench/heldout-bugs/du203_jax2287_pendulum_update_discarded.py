# Source: https://github.com/jax-ml/jax/issues/2287 ("Jax index_update does not update")
# A pendulum integrator stores each step with `jax.ops.index_update(tab_x, i, x)` without
# keeping the result; the tables stay zero. Maintainer: "It returns the updated array."
# Adapted: jax.ops.index_update was removed from JAX; its replacement `tab_x.at[i].set(x)` is
# used with the same discarded result. Names and loop are the user's.
import jax.numpy as np

dt = 1e-3
N = 100
x0 = 1.5
v0 = 0

tab_x = np.zeros(N)
tab_v = np.zeros(N)
tab_t = np.arange(N) * dt
c = 4 * np.pi**2
x = x0
v = v0
for i in range(N):
    x = x + v * dt
    v = v - c * np.sin(x) * dt
    tab_x.at[i].set(x)  # expect: JAX203
    tab_v.at[i].set(v)

print("max |tab_x| after the loop:", float(np.abs(tab_x).max()), "(last x was", float(x), ")")
