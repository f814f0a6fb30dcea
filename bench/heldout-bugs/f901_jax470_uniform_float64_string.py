# Source: https://github.com/jax-ml/jax/issues/470 ("jax.random does not respect its dtype argument
# if `jax_enable_x64` is not set")
# "Despite that I have specified dtype=np.float64 or dtype=onp.float64, I always get 32-bit
# array." Verbatim (with the imports the report assumes).
from jax import random

x = random.uniform(random.PRNGKey(0), (1000,), dtype="float64")  # expect: JAX901
print(x.dtype)  # return float32
