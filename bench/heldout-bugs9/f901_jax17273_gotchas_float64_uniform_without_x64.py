# Source: https://github.com/jax-ml/jax/issues/17273 ("Documentation example for enabling x64 mode
# shows x32 output", maximilianruesch, 2023-08-24). The "Double (64bit) precision" cell of the
# Sharp Bits notebook asks `random.uniform(..., dtype=jnp.float64)` and its comment promises
# `dtype('float64')`, but the executed notebook never enabled x64 and shows float32: the
# request is silently truncated (with a UserWarning).
# Adapted (the notebook cell as executed; the key made with random.key).
import warnings

import jax.numpy as jnp
from jax import random

warnings.simplefilter("always")

x = random.uniform(random.key(0), (1000,), dtype=jnp.float64)  # expect: JAX901
print(x.dtype)  # --> dtype('float64') promised; float32 printed
