# Source: https://github.com/jax-ml/jax/issues/2057 ("Some usability problems for new users")
# skye relays postdocs' experience porting NumPy code: "they almost always cast something in
# python space vs JAX space. So for example they would do complex(device_array) ... And then
# when they try wrapping everything in a jit, they hit the error TypeError: Abstract value passed
# to complex, which requires a concrete value".
# Reconstructed from the description: a ported NumPy-style function that casts with complex()
# inside jit. Today: ConcretizationTypeError.
import jax
import jax.numpy as jnp


@jax.jit
def phase_factor(theta):
    z = complex(jnp.cos(theta))  # expect: JAX703
    return z * jnp.exp(1j * theta)


try:
    print(phase_factor(0.3))
except jax.errors.ConcretizationTypeError as err:
    print(type(err).__name__)
