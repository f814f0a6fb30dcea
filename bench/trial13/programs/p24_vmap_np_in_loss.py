# NumPy habit: np.exp / np.log inside a function that is vmapped and differentiated.
import jax
import jax.numpy as jnp
import numpy as np


def log_sigmoid(z):
    return -np.log(1 + np.exp(-z))  # expect: JAX703


def nll(w, x, y):
    return -(y * log_sigmoid(x @ w) + (1 - y) * log_sigmoid(-(x @ w)))


w = jnp.zeros(3)
X = jnp.ones((4, 3))
Y = jnp.array([0.0, 1.0, 1.0, 0.0])
print(jax.grad(lambda w: jax.vmap(nll, in_axes=(None, 0, 0))(w, X, Y).mean())(w))
