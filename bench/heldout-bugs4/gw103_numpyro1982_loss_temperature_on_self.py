# Source: https://github.com/pyro-ppl/numpyro/issues/1982 ("Tracking leaked in ASVGD", 2025)
# fehiepsi: "We shouldn't set `self.foo` for a tracer foo" -- SteinVI's loss function stores
# `self.loss_temperature = ...` while it is being traced, and
# `JAX_CHECK_TRACER_LEAKS=1 pytest test/contrib/einstein/test_steinvi.py` reports the leak;
# the fix moves the value into the Stein state.
# Reconstructed: numpyro is not installed; the class keeps SteinVI's names (loss temperature
# annealed from the step, used in the jitted loss-and-grad) on a small quadratic objective.
import jax
import jax.numpy as jnp


class SteinVI:
    def __init__(self, num_steps):
        self.num_steps = num_steps
        self.loss_temperature = 1.0

    def _svgd_loss_and_grads(self, particles, step):
        self.loss_temperature = jnp.minimum(1.0, step / self.num_steps)  # expect: JAX103

        def loss(p):
            return self.loss_temperature * jnp.sum(p**2)

        return jax.value_and_grad(loss)(particles)

    def update(self, particles, step):
        return jax.jit(self._svgd_loss_and_grads)(particles, step)


stein = SteinVI(num_steps=10)
print(stein.update(jnp.ones(3), 2)[0])
try:
    print(stein.loss_temperature * 2)
except jax.errors.UnexpectedTracerError as err:
    print(type(err).__name__)
