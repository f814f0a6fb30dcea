# runtime: jax.errors.TracerBoolConversionError
# clean runtime: check: assert abs(float(limited[0]) - 0.5) < 1e-6
# jax-privacy's BufferedToeplitz.inverse: checks under `if not skip_checks:` need concrete
# values; its jitted caller passes skip_checks=True, so under jit they never run.
import jax
import jax.numpy as jnp
import numpy as np


class Toeplitz:
    def __init__(self, decay):
        self.decay = decay

    def inverse(self, skip_checks=False):
        if not skip_checks and len(self.decay) > 1:
            gap = jnp.min(jnp.abs(jnp.diff(self.decay)))
            if gap < 1e-9:  # expect: JAX701
                raise ValueError("decays too close")
        inverted = 1.0 / jnp.asarray(self.decay)
        if not skip_checks and not np.allclose(inverted * self.decay, 1.0):  # expect: JAX703
            raise RuntimeError("inverse failed")
        return Toeplitz(inverted)


@jax.jit
def limit(decay):
    toeplitz = Toeplitz(decay)
    return toeplitz.inverse().decay  # clean: return toeplitz.inverse(skip_checks=True).decay


checked = Toeplitz(jnp.array([2.0, 4.0])).inverse().decay  # eagerly, with the checks
limited = limit(jnp.array([2.0, 4.0]))
