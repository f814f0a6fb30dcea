# Source: https://github.com/QuantEcon/lecture-python-programming/issues/529 ("Bug: PRNG key reuse in autodiff lecture + unused import in numpy_vs_numba_vs_jax")
# The autodiff lecture simulates regression data with `x = jax.random.uniform(key, (n,))`
# and then `key, subkey = jax.random.split(key)`: the key is consumed by uniform and then
# split again. The fix splits three keys up front.
# Verbatim (the lecture lines as quoted in the issue; the debug_key_reuse check is added).
import jax
import jax.numpy as jnp

n = 100
with jax.debug_key_reuse(True):
    key = jax.random.key(1234)
    try:
        x = jax.random.uniform(key, (n,))

        α, β, σ = 0.5, 1.0, 0.1
        key, subkey = jax.random.split(key)  # expect: JAX602
        ϵ = jax.random.normal(subkey, (n,))
        y = α * x + β + σ * ϵ
        print(jnp.mean(y))
    except jax.errors.KeyReuseError as err:
        print(type(err).__name__)
