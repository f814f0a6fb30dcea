# %% [1]
import jax.numpy as jnp
import numpy as np
from jax.scipy.optimize import minimize
# %% [2]
r_data = np.linspace(0.8, 3.0, 23)
E_data = (1 - np.exp(-1.5 * (r_data - 1.1))) ** 2
# %% [3]
def objective(p):
    D, a, r0 = p
    model = D * (1 - np.exp(-a * (r_data - r0))) ** 2  # expect: JAX703
    return jnp.sum((model - E_data) ** 2)
# %% [4]
res = minimize(objective, jnp.array([0.8, 1.0, 1.0]), method="BFGS")
print(res.x)
