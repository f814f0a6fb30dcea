# Source: https://github.com/pyro-ppl/numpyro/issues/853 ("IndexError: Array boolean
# indices must be concrete.")
# A reed-frog model run with NUTS: `sample_shape=(jnp.unique(volume).size,)` inside the
# model; NUTS traces the model with the data arguments as tracers, so jnp.unique has no
# concrete input (2020: boolean-index error inside unique; today ConcretizationTypeError).
# Adapted: numpyro and pandas are not installed here; the data frame is replaced by
# small arrays with the same columns, numpyro.sample by a stand-in that draws from a
# key and adds the log-density, and NUTS by jax.jit of the model's log-joint (what
# NUTS's potential_fn does). The model body keeps the user's lines.
import jax
import jax.numpy as jnp
from jax import random
from jax.scipy import stats

def sample(name, logpdf, shape, key, obs=None, log_joint=None):
    value = obs if obs is not None else random.normal(random.fold_in(key, len(log_joint)), shape)
    log_joint[name] = jnp.sum(logpdf(value))
    return value


def model(key, tank, density, volume, survived=None):
    lj = {}  # stand-in for numpyro's trace
    # priors
    a_bar = sample('a_bar', lambda v: stats.norm.logpdf(v, 0, 1.5), (), key, log_joint=lj)
    sigma = jnp.exp(sample('sigma', lambda v: stats.norm.logpdf(v), (), key, log_joint=lj))
    a = sample('a', lambda v: stats.norm.logpdf(v, a_bar, sigma), tank.shape, key, log_joint=lj)
    s = sample('s', lambda v: stats.norm.logpdf(v, 0, 0.5), (jnp.unique(volume).size,), key, log_joint=lj)  # expect: JAX802
    # likelihood
    logits = a[tank] + s[volume]
    p = jax.nn.sigmoid(logits)
    sample('surv_hat', lambda v: stats.binom.logpmf(v, density, p), None, key, obs=survived, log_joint=lj)
    return sum(lj.values())


tank = jnp.arange(6)
density = jnp.array([10, 10, 10, 25, 25, 25])
volume = jnp.array([0, 0, 1, 1, 0, 1])
survived = jnp.array([9, 10, 7, 20, 22, 18])
print(float(model(random.PRNGKey(0), tank, density, volume, survived)))
try:
    print(jax.jit(model)(random.PRNGKey(0), tank, density, volume, survived))
except Exception as e:
    print(type(e).__name__)
