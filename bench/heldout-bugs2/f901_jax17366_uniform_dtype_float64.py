# Source: https://github.com/jax-ml/jax/issues/17366 ("Missing warning on requesting
# float64 in random.uniform")
# "by default JAX very aggressively uses fp32, overriding fp64 even when requested
# explicitly": random.uniform(..., dtype=jnp.float64) returns float32 (the report: with
# no warning, where jnp.zeros(1, dtype=jnp.float64) warns).
# Verbatim (IPython session turned into a script; the two inputs swapped so the
# random.uniform line comes first). The jnp.zeros line is a second, unmarked instance.
import jax.numpy as jnp
from jax import random

print(random.uniform(random.PRNGKey(0), dtype=jnp.float64).dtype)  # expect: JAX901


print(jnp.zeros(1, dtype=jnp.float64).dtype)
