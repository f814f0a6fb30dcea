# Time span passed the way solve_ivp takes it: t_span=[t0, t1].
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=(1,))
def integrate(y0, t_span):
    t0, t1 = t_span
    dt = (t1 - t0) / 100
    return jax.lax.fori_loop(0, 100, lambda i, y: y - dt * y, y0)


print(integrate(jnp.array(1.0), [0.0, 1.0]))  # expect: JAX1002
