# .at updates assigned back; NumPy array mutated in place; correct.
import jax.numpy as jnp
import numpy as np

x = jnp.zeros(4)
x = x.at[1].set(2.0)
x = x.at[2:].add(1.0)
buf = np.zeros(4)
buf[0] = 5
buf += 1
print(x, buf)
