# Source: https://github.com/jax-ml/jax/issues/10231 ("NonConcreteBooleanIndexError on call to
# jnp.unique")
# fonnesbeck's projection model called `ages_pred = jnp.unique(age_idx)` on an int array inside
# traced code and got NonConcreteBooleanIndexError; YouJiacheng: "the return value of unique has
# a shape that depends on input value"; jakevdp: working as intended.
# Reconstructed around the quoted line: the model body is jitted (as NUTS traces it); numpyro
# is not installed, so the prior is a plain jnp computation.
import jax
import jax.numpy as jnp


@jax.jit
def stuff_model(age_idx, velo):
    ages_pred = jnp.unique(age_idx)  # expect: JAX802
    age_effect = jnp.zeros(ages_pred.shape[0])
    return velo.mean() + age_effect.sum()


age_idx = jnp.array([24, 25, 26, 6, 14, 10, 24, 25])
velo = jnp.linspace(90.0, 95.0, 8)
try:
    print(stuff_model(age_idx, velo))
except jax.errors.ConcretizationTypeError as err:
    print(type(err).__name__)
