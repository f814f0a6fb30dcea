# Source: https://github.com/jax-ml/jax/issues/5017 ("Help understanding jit tracing in small
# example")
# DanPuzzuoli's fixed-step ODE solver computed `steps` from t_span and max_dt and scanned over
# `jnp.arange(steps)`; jitting sim_function raised ConcretizationTypeError because `steps` is a
# traced value (it depends on jnp operations).
# Verbatim (jaxfixedsolve and sim_function); the jit call and evidence added.
import jax
import jax.numpy as jnp
from jax.lax import scan
import numpy as np

def jaxfixedsolve(rhs, t_span, y0, max_dt):

    delta_t = t_span[1] - t_span[0]
    steps = jnp.array(delta_t // max_dt).astype(int)
    h = delta_t / steps

    def scan_func(carry, step):
        eval_time = t_span[0] + (h * step)
        return (carry + rhs(eval_time, carry)*h, None)

    yf = scan(scan_func, y0, jnp.arange(steps))[0]  # expect: JAX803
    return yf

def sim_function(coeff):

    def rhs(t, y):
        return coeff * y

    return jaxfixedsolve(rhs, t_span=[0, 0.5], y0=jnp.array(1., dtype=float), max_dt = 0.1)


print(sim_function(1.0))
try:
    print(jax.jit(sim_function)(1.0))
except jax.errors.ConcretizationTypeError as err:
    print(type(err).__name__)
