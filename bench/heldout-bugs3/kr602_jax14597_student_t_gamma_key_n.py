# Source: https://github.com/jax-ml/jax/issues/14597 ("Potential bug in Student's T random sampling")
# jax.random.t split its key into key_n and key_g but drew both the normal and the gamma part
# from key_n; jakevdp: "That looks like a bug" (fixed in #14598 to use key_g).
# Adapted: the body of jax._src.random._t of that time, written with public jax names.
import jax
import jax.numpy as jnp
from jax import lax


def student_t(key, df, shape=(), dtype=jnp.float32):
    df = lax.convert_element_type(df, dtype)
    key_n, key_g = jax.random.split(key)
    n = jax.random.normal(key_n, shape, dtype)
    two = jnp.asarray(2, dtype)
    half_df = lax.div(df, two)
    g = jax.random.gamma(key_n, half_df, shape, dtype)  # expect: JAX602
    return n * jnp.sqrt(half_df / g)


samples = student_t(jax.random.PRNGKey(0), 5.0, (20000,))
print("variance", jnp.var(samples), "expected", 5.0 / 3.0)
