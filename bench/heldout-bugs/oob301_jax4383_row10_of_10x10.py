# Source: https://github.com/jax-ml/jax/issues/4383 ("Jax numpy does not throw IndexError when
# array index out of bounds")
# "I was surprised by the behavior the the Jax numpy array not throwing an IndexError when using
# an index that is out of bounds"; a[11,:] and a[12,:] "will be the same as if we accessed
# a[9,:]". Verbatim (the jax half of the unittest, run as a script).
import jax.numpy as jnp
import jax.random as random

a = random.normal(random.PRNGKey(2020), (10, 10))
row = a[10, :]  # expect: JAX301
print("a[10, :] equals a[9, :]:", bool(jnp.all(row == a[9, :])))
