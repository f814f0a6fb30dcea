# Source: https://github.com/GalacticDynamics/coordinax/pull/561
# ("fix(transforms): make Scale/Reflect constructors jit-safe")
# nstarman: Scale.from_factors validated its input with `if bool(jnp.any(...)): raise
# ValueError(...)`; building the transform inside a jitted function fails:
# `eqx.filter_jit(cxfm.Scale.from_factors)(jnp.asarray([2., 0., 4.]))` raises
# TracerBoolConversionError. The fix uses eqx.error_if.
# Reconstructed (the PR text gives the check and the call; a small eqx.Module stands in).
import equinox as eqx
import jax
import jax.numpy as jnp


class Scale(eqx.Module):
    matrix: jax.Array

    @classmethod
    def from_factors(cls, factors):
        factors = jnp.asarray(factors)
        if bool(jnp.any(factors == 0)):  # expect: JAX701
            raise ValueError("Scale factors must be non-zero (the transform would be singular).")
        return cls(jnp.diag(factors))

    def __call__(self, q):
        return self.matrix @ q


print(Scale.from_factors(jnp.asarray([2.0, 1.0, 4.0]))(jnp.ones(3)))
try:
    eqx.filter_jit(Scale.from_factors)(jnp.asarray([2.0, 0.0, 4.0]))
except jax.errors.TracerBoolConversionError as err:
    print(type(err).__name__)
