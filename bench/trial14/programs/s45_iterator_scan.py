import jax
import jax.numpy as jnp
from jax import lax

batches = iter([jnp.ones(2) * i for i in range(5)])


def body(carry, _):
    batch = next(batches)  # expect: JAX104
    return carry + batch.sum(), None


total, _ = lax.scan(body, 0.0, None, length=5)
print(total)
