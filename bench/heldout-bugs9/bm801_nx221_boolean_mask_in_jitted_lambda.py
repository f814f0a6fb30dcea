# Source: https://github.com/elixir-nx/nx/issues/221 ("Support Boolean-indexing", josevalim's
# comment, 2021-02-17): checking what JAX does before adding boolean indexing to Nx, he found
# that `jax.jit(lambda x: x[x >= 3])` fails, because the boolean index must be concrete (the
# result's length depends on the values). Eagerly the same lambda works.
# Verbatim (the report's lambda; the eager call and the evidence added).
import jax
import jax.numpy as jnp

keep_large = lambda x: x[x >= 3]  # expect: JAX801

x = jnp.array([1, 2, 3, 4, 5, 6])
print(keep_large(x))
try:
    print(jax.jit(keep_large)(x))
except jax.errors.NonConcreteBooleanIndexError as err:
    print(type(err).__name__)
