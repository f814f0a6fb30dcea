# jax.debug.print is fine, but then a Python assert on the value.
import jax
import jax.numpy as jnp


@jax.jit
def safe_log(x):
    jax.debug.print("x={}", x)
    assert jnp.all(x > 0), "x must be positive"  # expect: JAX701
    return jnp.log(x)


print(safe_log(jnp.array([1.0, 2.0])))
