# OK (no findings expected): the key is passed in and returned instead of being kept in a
# module-level variable (counterpart of gw103_jax4312); a PRNG generator class that
# splits outside jit; keys split before each draw.
import jax
from jax import random


@jax.jit
def init(key):
    key, subkey = random.split(key)
    return key, random.normal(subkey, ())


class KeyGen:
    def __init__(self, seed):
        self._key = random.PRNGKey(seed)

    def next(self):
        self._key, new_key = random.split(self._key)
        return new_key


key = random.PRNGKey(0)
key, a = init(key)
key, b = init(key)
print(a, b)

keygen = KeyGen(0)
x = random.uniform(keygen.next(), (2, 2))
y = random.uniform(keygen.next(), (2, 2))
print(bool((x != y).all()))
