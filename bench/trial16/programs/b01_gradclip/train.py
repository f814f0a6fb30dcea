import jax
import jax.numpy as jnp

from optim import make_step

key = jax.random.PRNGKey(0)
kx, kw = jax.random.split(key)
x = jax.random.normal(kx, (64, 3))
y = x @ jnp.array([1.0, -2.0, 0.5]) + 0.1
params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
step = make_step(0.1)
for i in range(50):
    params, loss = step(params, x, y)
print("final loss", float(loss))
