# Source: https://github.com/blackjax-devs/blackjax/issues/53 ("reuse of a prng key in
# expand_once()")
# The reporter's illustration: the key is used to sample and then split, so "it generates the
# same numbers for v in the first call and u in the second call". Under
# jax_debug_key_reuse the split after the draw raises KeyReuseError.
# Verbatim (wiep's snippet); the comparison and debug-flag run are the evidence.
import jax


def f(rng_key):
    u = jax.random.normal(rng_key)
    rng_key, _ = jax.random.split(rng_key, 2)  # expect: JAX602
    v = jax.random.normal(rng_key)
    return (u, v)


key = jax.random.PRNGKey(0)
u1, v1 = f(key)
key, _ = jax.random.split(key, 2)
u2, v2 = f(key)
print("v of call 1 equals u of call 2:", bool(v1 == u2))

jax.config.update("jax_debug_key_reuse", True)
try:
    f(jax.random.key(0))
    print("no KeyReuseError")
except Exception as err:
    print(type(err).__name__, str(err).splitlines()[0])
