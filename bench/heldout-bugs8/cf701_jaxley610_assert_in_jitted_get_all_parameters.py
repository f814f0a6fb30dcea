# Source: https://github.com/jaxleyverse/jaxley/pull/610 ("Bugfix: allow ion diffusion to be
# jitted")
# "The assert within `get_all_parameters()` broke because this function gets `jit`ted. We now move
# the assert to `.set()`." With trainable parameters the ion diffusion constant is a tracer, and
# the assert on its value raises TracerBoolConversionError under jit.
# Reconstructed (jaxley is not installed: the module keeps the report's method name; the
# simulation is one explicit diffusion step).
import jax
import jax.numpy as jnp


class Compartments:
    def __init__(self, n):
        self.params = {"axial_diffusion_CaCon_i": jnp.full(n, 1e-3), "radius": jnp.ones(n)}

    def get_all_parameters(self, trainable):
        params = dict(self.params)
        params.update(trainable)
        assert jnp.all(params["axial_diffusion_CaCon_i"] >= 0.0), "diffusion must be non-negative"  # expect: JAX701
        return params

    def simulate(self, trainable, conc):
        params = self.get_all_parameters(trainable)
        flux = params["axial_diffusion_CaCon_i"] * jnp.gradient(conc) / params["radius"]
        return conc + jnp.gradient(flux)


cell = Compartments(4)
trainable = {"axial_diffusion_CaCon_i": jnp.full(4, 2e-3)}
conc = jnp.array([1.0, 0.5, 0.2, 0.1])
print(cell.simulate(trainable, conc))
try:
    print(jax.jit(cell.simulate)(trainable, conc))
except jax.errors.TracerBoolConversionError as err:
    print(type(err).__name__)
