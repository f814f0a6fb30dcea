# Source: https://github.com/jax-ml/jax/issues/2765 ("Alternative to array-based boolean
# indexing for jax.jit")
# phinate's differentiable workflow used `thing = thing[thing > 0]` and failed under jit with
# "Array boolean indices must be static"; jekbradbury: the output shape depends on the values.
# Adapted: the quoted line inside a jitted step of the workflow; the jnp.where form is shown.
import jax
import jax.numpy as jnp


@jax.jit
def positive_sum(thing):
    thing = thing[thing > 0]  # expect: JAX801
    return thing.sum()


thing = jnp.array([1.0, -2.0, 3.0])
try:
    print(positive_sum(thing))
except jax.errors.NonConcreteBooleanIndexError as err:
    print(type(err).__name__)
print(jax.jit(lambda t: jnp.where(t > 0, t, 0.0).sum())(thing))
