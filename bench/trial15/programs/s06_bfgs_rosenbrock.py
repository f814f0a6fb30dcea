# scipy.optimize.minimize(method="BFGS") port: jax.scipy.optimize.minimize.
import jax.numpy as jnp
from jax.scipy.optimize import minimize


def rosen(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


x0 = jnp.array([-1.2, 1.0, 0.8, 1.9])
res = minimize(rosen, x0, method="BFGS", tol=1e-6)
print(res.success, res.x, res.fun)
