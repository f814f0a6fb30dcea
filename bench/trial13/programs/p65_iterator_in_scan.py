# Feeding a data iterator to the scan body.
import jax
import jax.numpy as jnp

data = iter([jnp.array(1.0), jnp.array(2.0), jnp.array(3.0)])


def body(carry, _):
    x = next(data)  # expect: JAX104
    return carry + x, x


total, xs = jax.lax.scan(body, 0.0, None, length=3)
print(total, xs)
