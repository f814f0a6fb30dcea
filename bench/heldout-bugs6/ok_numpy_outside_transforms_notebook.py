# ok: notebook-style script where NumPy does the host-side bookkeeping (filling a NumPy
# buffer in place, np.interp on NumPy tables, a Python list of distances) and JAX is used
# only on finished arrays; nothing here is traced.
import jax.numpy as jnp
import numpy as np

table_x = np.array([0.0, 1.0, 2.0])
table_y = np.array([0.0, 1.0, 4.0])
print(np.interp(np.array([0.5, 1.5]), table_x, table_y))

distances = np.empty((2, 2))
bank = [np.ones(4), np.arange(4.0)]
for i, d in enumerate([np.ones(4), np.eye(4)[0]]):
    dist = []
    for ref in bank:
        dist.append(1.0 - d @ ref / (np.linalg.norm(d) * np.linalg.norm(ref)))
    distances[i][0] = dist[int(np.argmin(np.asarray(dist)))]
    distances[i][1] = max(dist)

params = [np.ones(2), np.ones(3)]
for param in params:
    param -= 0.1
print(jnp.asarray(distances), params[0])
