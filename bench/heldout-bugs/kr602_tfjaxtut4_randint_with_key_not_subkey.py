# Source: https://github.com/AakashKumarNain/TF_JAX_tutorials/issues/4 ("Incorrect usage of PRNG")
# Cell 23: `key, subkey = random.split(key)` followed by `random.randint(key, ...)`: "you
# shall be using the subkey in random.randint, not the original key ... subkey is never used."
# The key drawn from is split again at the next batch: under jax_debug_key_reuse this is a
# KeyReuseError. Adapted: the augmentation loop around the quoted lines.
import jax
import jax.numpy as jnp
from jax import random

jax.config.update("jax_debug_key_reuse", True)

batch_size = 8
key = random.key(0)
try:
    for step in range(2):
        key, subkey = random.split(key)
        rotate = random.randint(key, shape=[batch_size], minval=0, maxval=2)  # expect: JAX602
        print("rotate", jnp.asarray(rotate).tolist())
except Exception as err:
    print(type(err).__name__, str(err).splitlines()[0])
