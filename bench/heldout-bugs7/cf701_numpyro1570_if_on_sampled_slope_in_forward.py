# Source: https://github.com/pyro-ppl/numpyro/issues/1570 ("evaluate numpyro sample during mcmc")
# Sarenrenegade's forward model checks a sampled coefficient with `if a < 5:` before
# computing `y = b + a * x`; under NUTS the samples are tracers and the check raises a
# concretization error. The question: how to read the value of a tracer during MCMC.
# Adapted (numpyro is not installed here: the model's log density, as NUTS traces it, is a
# jitted function of the sampled (a, b); `forward` is the reporter's).
import jax
import jax.numpy as jnp
import numpy as np


def forward(x, a, b):
    y = b + a * x

    if a < 5:  # expect: JAX701
        print("hello")
    else:
        print("goodbye")

    return y


x_values = np.arange(0, 1e2, dtype=float)
y_obs = 150.0 + 10.0 * x_values + np.random.default_rng(0).normal(0, 200.0, x_values.size)


@jax.jit
def log_density(params):
    a, b = params
    y = forward(x_values, a, b)
    return -0.5 * jnp.sum(((y_obs - y) / 200.0) ** 2)


print(forward(x_values, 10.0, 150.0)[:3])
try:
    print(log_density(jnp.array([10.0, 150.0])))
except jax.errors.TracerBoolConversionError as err:
    print(type(err).__name__)
