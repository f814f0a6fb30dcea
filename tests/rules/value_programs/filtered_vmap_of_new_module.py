# runtime: jax.errors.TracerArrayConversionError
# clean runtime: check: assert out.shape == (2,)
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np


class Projection(eqx.Module):
    w: jax.Array

    def __call__(self, x):
        return np.vdot(self.w, x)  # expect: JAX703  # clean: return jnp.vdot(self.w, x)


out = eqx.filter_vmap(Projection(jnp.ones(3)))(jnp.ones((2, 3)))
