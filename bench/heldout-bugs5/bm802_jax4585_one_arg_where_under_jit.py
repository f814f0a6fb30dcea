# Source: https://github.com/jax-ml/jax/issues/4585 ("Is it possible to make nonzero jittable")
# Joshuaalbert wanted jnp.where(condition) (the one-argument form, i.e. nonzero) under jit, for
# example the location of the unique maximum, jnp.where(a == jnp.max(a)); the output size
# depends on the values, so it raises ConcretizationTypeError. Today size= (or argmax +
# unravel_index, as he found) makes it jittable.
# Adapted (the report's one-liner `jit(jnp.where(a>1))` and the max example written as
# the functions he meant; try/except and the size= version added).
import jax
import jax.numpy as jnp
from jax import jit


@jit
def location_of_max(a):
    return jnp.where(a == jnp.max(a))  # expect: JAX802


a = jnp.array([[0.0, 3.0], [1.0, 2.0]])
try:
    print(location_of_max(a))
except jax.errors.ConcretizationTypeError as err:
    print(type(err).__name__)
print(jit(lambda a: jnp.where(a == jnp.max(a), size=1))(a))
print(jnp.unravel_index(jnp.argmax(a.flatten()), a.shape))
