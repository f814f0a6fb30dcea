# Source: https://github.com/jcmgray/autoray/issues/27 ("JAX tracing out the random global key",
# RustyBamboo, 2025-07-19). With the jax backend, `ar.do("random.normal", like="jax")` draws from
# a module-level key that a helper splits and stores back in the global. Under `jax.jit` the
# split runs once, at trace time: every call of the jitted sampler returns the same number
# (0.11975035 ten times), and the global is left holding a tracer.
# Reconstructed (autoray's global-key helper, small; the report's jitted sampler).
import jax

_JAX_RANDOM_KEY = None


def jax_random_get_key():
    global _JAX_RANDOM_KEY
    if _JAX_RANDOM_KEY is None:
        _JAX_RANDOM_KEY = jax.random.PRNGKey(0)
    _JAX_RANDOM_KEY, subkey = jax.random.split(_JAX_RANDOM_KEY)  # expect: JAX103
    return subkey


@jax.jit
def sampler():
    return jax.random.normal(key=jax_random_get_key())


draws = [float(sampler()) for _ in range(3)]
print(draws, "all equal:", len(set(draws)) == 1)
print("global key is a tracer:", isinstance(_JAX_RANDOM_KEY, jax.core.Tracer))
