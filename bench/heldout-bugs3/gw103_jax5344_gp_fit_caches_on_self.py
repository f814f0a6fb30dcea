# Source: https://github.com/jax-ml/jax/issues/5344 ("Caching data best practice?")
# tawe141's Gaussian-process class cached K and K^-1 y on `self` in `fit`, and jitted it with
# `self.fit = jit(self.fit, static_argnums=0)`; "JITing this results in a tracer error" (the
# cached attributes hold tracers after the trace).
# Adapted: the class of the issue trimmed to fit/predict with an RBF kernel; fit is jitted as a
# bound method (x, y traced) and the later predict reads the leaked attributes.
import jax
import jax.numpy as jnp
from jax import jit


def rbf(a, b):
    return jnp.exp(-0.5 * (a[:, None] - b[None, :]) ** 2)


class GP:
    def __init__(self, alpha: float = 1e-8, debug: bool = True):
        self.alpha = alpha
        self.x = None
        self.y = None
        self.K = None
        self.U = None
        if debug is False:
            self.fit = jit(self.fit)

    def fit(self, x, y):
        self.x = x
        self.y = y
        self.K = rbf(x, x) + self.alpha * jnp.eye(x.shape[0])  # expect: JAX103
        self.U = jnp.linalg.solve(self.K, y)
        return self.U

    def predict_mu(self, x_new):
        return rbf(x_new, self.x) @ self.U


gp = GP(debug=False)
gp.fit(jnp.linspace(0.0, 1.0, 5), jnp.sin(jnp.linspace(0.0, 1.0, 5)))
try:
    print(gp.predict_mu(jnp.array([0.5])))
except jax.errors.UnexpectedTracerError as err:
    print(type(err).__name__)
