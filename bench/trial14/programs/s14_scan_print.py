import jax
import jax.numpy as jnp
from jax import lax


def cumulative_loss(losses):
    def body(total, l):
        total = total + l
        print("running total", total)  # expect: JAX101
        return total, total

    return lax.scan(body, 0.0, losses)


print(cumulative_loss(jnp.array([1.0, 2.0, 3.0])))
