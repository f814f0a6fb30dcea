# ok: sizes and shapes come from static arguments or Python constants; statics are hashable.
from functools import partial

import jax
import jax.numpy as jnp
from jax import random
from jax.lax import scan


@partial(jax.jit, static_argnames=("n_samps", "N"))
def sample(key, n_samps, N):
    k1, k2 = random.split(key)
    flips = random.randint(k1, (n_samps,), 0, N)
    accept = random.uniform(k2, (n_samps,))
    return flips, accept


@partial(jax.jit, static_argnames=["sizes"])
def split_sum(x, sizes):
    ends = [sum(sizes[: i + 1]) for i in range(len(sizes))]
    return jnp.stack([x[end - size : end].sum() for size, end in zip(sizes, ends)])


def fixed_solve(rhs, t_span, y0, max_dt):
    steps = int((t_span[1] - t_span[0]) // max_dt)
    h = (t_span[1] - t_span[0]) / steps

    def scan_func(carry, step):
        return carry + rhs(t_span[0] + h * step, carry) * h, None

    return scan(scan_func, y0, jnp.arange(steps))[0]


@jax.jit
def sim_function(coeff):
    return fixed_solve(lambda t, y: coeff * y, (0.0, 0.5), jnp.array(1.0), 0.1)


@partial(jax.jit, static_argnums=(2, 3))
def forward_euler(z0, dt, n_start, n_end):
    z = z0
    for _ in range(n_end - n_start):
        z = z + dt * (-z)
    return z


print(sample(random.PRNGKey(1), 10, 5)[0])
print(split_sum(jnp.arange(6.0), sizes=(2, 4)))
print(sim_function(1.0), forward_euler(1.0, 0.01, 0, 100))
print(jnp.take(jnp.arange(5), 4), jnp.arange(5)[-1])
