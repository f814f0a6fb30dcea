# runtime: jax.errors.ConcretizationTypeError
# clean runtime: check: assert abs(complex(phase_factor(0.3)) - complex(np.exp(0.3j) * np.cos(0.3))) < 1e-5
# jax #2057: NumPy code ported to JAX casts with `complex()`; under jit (and grad) the tracer
# has no Python value. `complex()` of a concrete result outside the trace is fine.
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def phase_factor(theta):
    z = complex(jnp.cos(theta))  # expect: JAX703  # clean: z = jnp.cos(theta).astype(jnp.complex64)
    return z * jnp.exp(1j * theta)


print(np.round(complex(phase_factor(0.3)), 3))
