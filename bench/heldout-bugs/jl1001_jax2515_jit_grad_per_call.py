# Source: https://github.com/jax-ml/jax/issues/2515 ("How to accelerate use jit in loop")
# Likelihood fit where `my_dev_likelihood` builds `jit(grad(_Likelihood))` on every call:
# grad() returns a new function object each time, so every call traces and compiles again
# and "the jit can not accelerate". Adapted: the user's functions with iminuit replaced by
# direct calls; a trace counter is the evidence.
import jax.numpy as jnp
from jax import grad, jit
from numpy import random

traces = []


def _Likelihood(s, m, w):
    traces.append(1)
    return jnp.sum(-jnp.log(1 / (s * jnp.sqrt(2.0 * jnp.pi)) * jnp.exp(-(((w - m) / s) ** 2) / 2.0)))


def my_dev_likelihood(pars, x):
    return jit(grad(_Likelihood))(pars[0], pars[1], x)  # expect: JAX1001


sigma, mu, N = 5.0, 100.0, 100
x = random.randn(N) * sigma + mu
for ss, mm in [(5.0, 100.0), (5.5, 101.0), (4.5, 99.0)]:
    my_dev_likelihood((ss, mm), x)
print("traces for 3 calls:", len(traces))
