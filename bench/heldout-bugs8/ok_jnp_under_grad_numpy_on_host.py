# ok: the loss uses jax.numpy under grad and vmap (jax.scipy for special functions); NumPy and
# SciPy only prepare data on the host, outside any transformation.
import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy.special import betainc
from scipy.special import hyp2f1

x = np.linspace(0, 1, 100)
y = 2 * x + 3 + np.random.default_rng(0).standard_normal(100)
reference = hyp2f1(2.0, -2.0, 3.0, 0.5)


def f(params, x, y):
    return jnp.mean(jnp.power((params["w"] * x + params["b"]) - y, 2))


def incomplete_beta(x, a, b):
    return betainc(a, b, x)


print(jax.grad(f)({"w": 2.4, "b": 10.0}, x, y))
print(jax.vmap(incomplete_beta, in_axes=(0, None, None))(jnp.linspace(0.1, 0.9, 4), 2.0, 3.0))
print(float(np.asarray(reference)))
