import jax
import jax.numpy as jnp

from optim import make_step

kx, _ = jax.random.split(jax.random.PRNGKey(0))
x = jax.random.normal(kx, (64, 3))
y = x @ jnp.array([1.0, -2.0, 0.5]) + 0.1
params = {"w": jnp.zeros(6), "b": jnp.zeros(())}
step = make_step(0.05)
for _ in range(100):
    params, loss = step(params, x, y, degree=2)
print("final loss", float(loss))
