# Source: https://github.com/jax-ml/jax/issues/648 ("TypeError: unhashable type: 'JaxprTracer'")
# adamhaber's Metropolis-Hastings sampler took the number of samples as an argument of the
# jitted `sample(key, n_samps, N)` and built `random.randint(key, (n_samps,), ...)`; hawkinsp:
# "Shapes within a jit block must be fully determined by the static arguments ... you are
# passing a non-static value for N where a function expects a static argument".
# Reconstructed around the described call (the sampler body trimmed to its random draws).
import jax
import jax.numpy as np
from jax import jit, random


@jit
def sample(key, n_samps, N):
    key, k1, k2 = random.split(key, 3)
    flips = random.randint(k1, (n_samps,), 0, N)  # expect: JAX803
    accept = random.uniform(k2, (n_samps,))
    return flips, accept


key = random.PRNGKey(1)
n_samps = 10
N = 5
try:
    print(sample(key, n_samps, N))
except TypeError as err:
    print(type(err).__name__, str(err)[:60])
