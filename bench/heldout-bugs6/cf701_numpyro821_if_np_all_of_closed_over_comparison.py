# Source: https://github.com/pyro-ppl/numpyro/pull/821 ("Fix a bug at MCMC.print_summary")
# fehiepsi, fixing numpyro's tfp wrapper, showed that guarding NumPy code with
# `not_jax_tracer(y)` is not enough: `y` is a concrete module-level jnp array, but inside a
# jitted function `y <= 0` is a traced value. np.all hands it back to the tracer's own
# .all(), so the `if` converts a traced bool. Today: TracerBoolConversionError (the fix:
# np.less on the concrete array, which stays a NumPy bool).
# Verbatim (the reviewer's snippet; numpyro.util.not_jax_tracer inlined, try/except added).
import jax
import jax.numpy as jnp
import numpy as np
from jax import jit


def not_jax_tracer(x):
    return not isinstance(x, jax.core.Tracer)


def f(x):
    if not_jax_tracer(y):
        if np.all(y <= 0):  # expect: JAX701
            print("nooo")
    return x + y


y = jnp.arange(10.0)
print(f(1)[:3])
try:
    print(jit(f)(1))
except jax.errors.TracerBoolConversionError as err:
    print(type(err).__name__)
