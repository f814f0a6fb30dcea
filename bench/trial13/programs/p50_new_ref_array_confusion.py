# Reading a Ref gives an array; writing into that array is still an error.
import jax
import jax.numpy as jnp

state = jax.new_ref(jnp.zeros(3))
snapshot = state[...]
state[1] = 5.0
snapshot[1] = 7.0  # expect: JAX201
print(state[...], snapshot)
