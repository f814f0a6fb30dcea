"""Side effects in traced code: they run once, while JAX traces (JAX101-JAX104)."""

import jax
import jax.numpy as jnp
from jax import lax

temperature = 1.0
history = []


@jax.jit
def softmax(logits):
    print("logits:", logits)  # prints a tracer, once
    history.append(logits)  # leaks a tracer
    return jax.nn.softmax(logits / temperature)  # the value at the first trace is baked in


def noisy_total(n):
    noise = iter([0.1, 0.2, 0.3])
    return lax.fori_loop(0, n, lambda i, x: x + next(noise), 0.0)  # next() runs once


softmax(jnp.arange(3.0))
temperature = 10.0
softmax(jnp.arange(3.0))  # still uses temperature = 1.0
